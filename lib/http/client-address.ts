/**
 * The client address for the per-address throttles: from `x-forwarded-for`, the entry `trustedHops`
 * from the right, or else `x-real-ip`; null when neither is set.
 *
 * A reverse proxy appends the address it saw to `x-forwarded-for`, so entries to the left of what
 * the proxies in front of the dashboard wrote are whatever the client sent, and trusting the first
 * entry would let anyone pick their own throttle key. With one proxy (`TRUSTED_PROXY_HOPS=1`, the
 * default) the last entry is the client. Reached directly, Next.js fills the header from the socket
 * only when the request has none, so a client can still choose it: deploy behind a proxy, or set
 * `TRUSTED_PROXY_HOPS=0` (as demo mode does, bound to localhost), which trusts no header and puts
 * every client under one address key ("direct").
 */
/** The one address key when no proxy is trusted. */
export const DIRECT = "direct";

export function clientAddress(
  headers: Record<string, string | string[] | undefined> | Headers | undefined,
  trustedHops = 1,
): string | null {
  if (trustedHops === 0) return DIRECT;
  if (!headers) return null;
  const get = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const v = headers[name];
    return Array.isArray(v) ? v.join(",") : v;
  };
  const chain = (get("x-forwarded-for") ?? "").split(",").map((e) => e.trim()).filter((e) => e !== "");
  const address = chain[Math.max(0, chain.length - trustedHops)] ?? get("x-real-ip")?.trim();
  return address ? address.slice(0, 100) : null;
}
