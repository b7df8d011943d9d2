import "server-only";
/** Request plumbing shared by the share routes and the share page: who the visitor is and the signing secret. */
import { cookies, headers } from "next/headers";
import { clientAddress } from "@/lib/core/http/client-address";
import { serverEnv } from "@/lib/core/env/env";

/** The visitor's address as the trusted proxy saw it; null when none is trusted (see clientAddress). */
export function requestAddress(headers: Headers): string | null {
  return clientAddress(headers, serverEnv().TRUSTED_PROXY_HOPS);
}

/** A share link's visitor, as every share route and page reads them: their address and the link's unlock cookie. */
export interface ShareVisitor {
  address: string | null;
  cookie: (name: string) => string | undefined;
}

/** The visitor of the request under way: the share routes' context (`apiRoute`'s `feature`) and the share page's. */
export async function shareVisitor(): Promise<ShareVisitor> {
  const jar = await cookies();
  return { address: requestAddress(await headers()), cookie: (name) => jar.get(name)?.value };
}

export function shareSecret(): string {
  return serverEnv().NEXTAUTH_SECRET;
}
