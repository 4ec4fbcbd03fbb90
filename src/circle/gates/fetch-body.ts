/** The fetch gate's reading side: a body read as text up to a cap, and errors that say what failed. */
import { TextDecoder } from "node:util";
import { shownUrl } from "./fetch-allow.js";

/** The body as text, refused once it passes `maxBytes` (announced or read). */
export async function readCapped(response: Response, maxBytes: number, url: URL): Promise<string> {
  const tooBig = (): Error =>
    new Error(`fetch: the response from ${shownUrl(url)} is larger than max_bytes (${maxBytes})`);
  const announced = Number(response.headers.get("content-length"));
  if (Number.isFinite(announced) && announced > maxBytes) {
    await response.body?.cancel();
    throw tooBig();
  }
  if (!response.body) return "";
  const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooBig();
    }
    chunks.push(value);
  }
  return decoder(response.headers.get("content-type")).decode(Buffer.concat(chunks));
}

function decoder(contentType: string | null): TextDecoder {
  const charset = /charset=["']?([^;"'\s]+)/i.exec(contentType ?? "")?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8");
  } catch {
    return new TextDecoder("utf-8");
  }
}

/** A failure to reach the host, said plainly (the client's own message names no query string). */
export function reachError(err: unknown, url: URL, outer: AbortSignal): unknown {
  if (outer.aborted) return err; // the entity's turn was cancelled: not the gate's failure
  const message = (err as Error | undefined)?.message ?? String(err);
  if (message.startsWith("fetch: ")) return err;
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const detail =
    typeof cause?.code === "string"
      ? cause.code
      : typeof cause?.message === "string"
        ? cause.message
        : message;
  return new Error(`fetch: cannot reach ${url.host}: ${detail}`);
}
