import "server-only";
/** Request plumbing shared by the share routes and the share page: the visitor's address and the signing secret. */
import { clientAddress } from "@/lib/http/client-address";
import { serverEnv } from "@/lib/env";

export function requestAddress(headers: Headers): string {
  return clientAddress(headers, serverEnv().TRUSTED_PROXY_HOPS) ?? "unknown";
}

export function shareSecret(): string {
  return serverEnv().NEXTAUTH_SECRET;
}
