/** The routes every instance answers itself, owner or replica: its health and the contract's OpenAPI document. */
import { buildOpenApiDocument } from "@/lib/contract/openapi";
import type { Route } from "./route";

export function infoRoutes(): Record<string, Route[]> {
  const openapi = buildOpenApiDocument();
  return {
    "/healthz": [{ method: "GET", auth: "none", handle: async () => ({ body: { status: "ok" } }) }],
    "/openapi.json": [{ method: "GET", auth: "none", handle: async () => ({ body: openapi }) }],
  };
}
