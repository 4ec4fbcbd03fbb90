/// <reference lib="dom" />
import { useEffect, useState } from "preact/hooks";
import { get } from "./api.js";

/**
 * A request of the page that failed (a 404 for an address naming no such entity or turn, a
 * server gone): thrown while rendering, so that the view's boundary (main.ts) says what failed
 * instead of "Loading…" for ever.
 */
export class GetFailed extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

export function failureText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

interface Got<T> {
  path: string;
  value?: T;
  error?: string;
}

/**
 * An API answer, asked again when the path or the version changes (the old one kept meanwhile).
 * A failure throws GetFailed while rendering — unless an answer for this path is at hand (a
 * later poll that failed keeps what is shown).
 */
export function useGet<T>(path: string, version: number): T | undefined {
  const [got, setGot] = useState<Got<T> | undefined>(undefined);
  useEffect(() => {
    let live = true;
    get<T>(path).then(
      (value) => live && setGot({ path, value }),
      (err: unknown) =>
        live &&
        setGot((old) =>
          old?.path === path && old.value !== undefined ? old : { path, error: failureText(err) },
        ),
    );
    return () => {
      live = false;
    };
  }, [path, version]);
  if (got?.error !== undefined && got.path === path) throw new GetFailed(got.error, path);
  return got?.error === undefined ? got?.value : undefined;
}
