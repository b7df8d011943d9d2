import "server-only";
/** Request plumbing shared by the share routes and the share page: the visitor's address and the signing secret. */
import { clientAddress } from "@/lib/core/http/client-address";
import { serverEnv } from "@/lib/core/env/env";

/** The visitor's address as the trusted proxy saw it; null when none is trusted (see clientAddress). */
export function requestAddress(headers: Headers): string | null {
  return clientAddress(headers, serverEnv().TRUSTED_PROXY_HOPS);
}

export function shareSecret(): string {
  return serverEnv().NEXTAUTH_SECRET;
}
