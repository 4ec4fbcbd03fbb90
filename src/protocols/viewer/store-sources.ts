/**
 * What `spell view` reads of a loom that is not a file (a database): the one loom, read through
 * its store's contract (src/loom/viewer/store-index.ts), live. There is no folder: no eval run, no
 * file, and no fork (a fork appends through a loom file and writes its state beside it).
 */
import type { LoomReadStore } from "../../loom/stores/index.js";
import { StoreViewerIndex } from "../../loom/viewer/index.js";
import type { LoomSource, Source, ViewerSources } from "./sources.js";

export class StoreSources implements ViewerSources {
  readonly source: LoomSource;

  /** `name`: the loom as the page shows it (a database's URL without its password). */
  constructor(
    readonly store: LoomReadStore,
    name: string,
  ) {
    const index = new StoreViewerIndex(store);
    this.source = { id: "0", kind: "loom", name, path: name, index };
  }

  list(): Source[] {
    return [this.source];
  }

  get(id: string): Source | undefined {
    return id === this.source.id ? this.source : undefined;
  }

  readText(): string | null {
    return null;
  }

  withOnDisk<T>(): Promise<T> {
    return Promise.reject(
      new Error("this loom is not a file: fork it with spell loom fork on a loom file"),
    );
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** The sources of a store's loom, its first page read (rejects when the store cannot be read). */
export async function storeSources(store: LoomReadStore, name: string): Promise<StoreSources> {
  const sources = new StoreSources(store, name);
  await sources.source.index.look();
  return sources;
}
