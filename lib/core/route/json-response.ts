/**
 * The API's JSON answers, and whether Next.js compresses them. `next start` gzips every route answer
 * whose length it does not know, and it never knows one: it drops a route Response's Content-Length
 * and Content-Encoding (next/dist/server/send-response.js), so the compression middleware's own 1 KiB
 * threshold cannot apply and a body cannot be sent precompressed. That middleware does skip an answer
 * marked `Cache-Control: no-transform` (RFC 9111: nothing on the way may transform it), so small
 * answers are marked so here, and large ones are left to gzip.
 *
 * Why 4 KiB (docs/benchmarks.md): gzip costs a fixed ≈ 0.5 ms of server and client time per
 * answer on a quiet machine, 1.3 ms under load, whatever the size up to tens of KB. An answer of at
 * most 4 KiB (a month by date: 2.3 KB, 0.6 KB gzipped) sends at most ≈ 3.4 KB more, which fits in
 * the first TCP flight (10 segments, ≈ 14 KB): no extra round trip, and ≤ 0.6 ms more on a 50 Mbit/s
 * link. A larger answer (three months by date: 6.5 KB, 1.2 KB gzipped; by date and gateway: 190 KB,
 * 15 KB) is compressed as before, so a remote browser never gets several times the bytes of a big one.
 */
/** Answers up to this many bytes go uncompressed. */
export const UNCOMPRESSED_MAX_BYTES = 4096;

/** `no-store`, with `no-transform` for an answer small enough to send uncompressed. */
export function cacheControlFor(bytes: number): string {
  return bytes <= UNCOMPRESSED_MAX_BYTES ? "no-store, no-transform" : "no-store";
}

/** A JSON answer of already-serialized bytes, never stored by a cache, compressed only when large. */
export function jsonResponse(json: string | Buffer<ArrayBuffer>, status = 200, headers: Record<string, string> = {}): Response {
  const bytes = typeof json === "string" ? Buffer.byteLength(json) : json.byteLength;
  // A plain Response: NextResponse adds a cookie jar (parsed from the headers at construction) that
  // no API answer uses.
  return new Response(json, { status, headers: { "Content-Type": "application/json", "Cache-Control": cacheControlFor(bytes), ...headers } });
}
