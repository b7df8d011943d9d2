/**
 * The client address for the per-address throttles and the audit log: from `x-forwarded-for`, the
 * entry `trustedHops` from the right, or else `x-real-ip`; null when neither is set, and always null
 * when no proxy is trusted.
 *
 * A reverse proxy appends the address it saw to `x-forwarded-for`, so entries to the left of what
 * the proxies in front of the dashboard wrote are whatever the client sent, and trusting the first
 * entry would let anyone pick their own throttle key. With one proxy (`TRUSTED_PROXY_HOPS=1`, the
 * default) the last entry is the client.
 *
 * Reached directly (`TRUSTED_PROXY_HOPS=0`), the server cannot see who is asking: `next start`
 * hands a route handler no socket address, only `x-forwarded-for`, which it fills from the socket
 * only when the client sent none, so any client can name any address, the victim's included. A
 * shared key ("every direct client") would let one client's guesses lock out everyone, so there is no
 * address at all: the throttles key on the account and the link being guessed only
 * (lib/core/auth/authenticate.ts, lib/features/sharing/service.ts), and the server says so when it starts
 * (`addressNotice`).
 */

export function clientAddress(
  headers: Record<string, string | string[] | undefined> | Headers | undefined,
  trustedHops = 1,
): string | null {
  if (trustedHops === 0) return null;
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

/** What the server says at start about the addresses it can see, or null when a proxy supplies them. */
export function addressNotice(trustedHops: number): string | null {
  if (trustedHops > 0) return null;
  return "TRUSTED_PROXY_HOPS=0: client addresses cannot be seen (no trusted proxy), so sign-in and share-link throttles key on the account and the link only, and the audit log records no addresses";
}
