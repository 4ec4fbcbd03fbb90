/**
 * A loaded spell called like a function (issue 26): the call's inputs checked against the
 * spell's `inputs:` and put into its intent (castIntent), then one cast. A bad input rejects
 * with `bad_input` before anything is cast.
 */
import type { CastOptions } from "../core/cantrip.js";
import { ConfigError } from "../core/errors.js";
import type { CastResult } from "../core/result.js";
import type { Loom } from "../loom/core/index.js";
import type { LoadedSpell } from "./index.js";
import { castIntent, type SpellCall } from "./inputs.js";

export async function castSpell(
  loaded: Pick<LoadedSpell, "spell" | "cantrip">,
  call: SpellCall = {},
  options: CastOptions = {},
): Promise<CastResult<Loom>> {
  if (!loaded.cantrip)
    throw new ConfigError(
      "not_compiled",
      "the spell was loaded with validateOnly: nothing to cast",
    );
  return loaded.cantrip.cast(await castIntent(loaded.spell, call), options);
}
