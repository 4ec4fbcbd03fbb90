/// <reference lib="dom" />
import { useEffect, useState } from "preact/hooks";
import { get } from "./api.js";

/** An API answer, asked again when the path or the version changes (the old one kept meanwhile). */
export function useGet<T>(path: string, version: number): T | undefined {
  const [value, setValue] = useState<T | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void get<T>(path).then((v) => live && setValue(v));
    return () => {
      live = false;
    };
  }, [path, version]);
  return value;
}
