/**
 * Ward names are typed from the schema: the compiler fails here when the schema's wards and
 * the runtime's (core/wards.ts) differ in either direction.
 */
import type { WardName } from "../core/wards.js";
import type { Ward } from "../generated/spell.js";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const WARD_NAMES_MATCH_SCHEMA: Same<keyof Ward, WardName> = true;
