import { ApiError } from "@/lib/contract/errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A state-changing request must come from the dashboard's own pages. Browsers say where a request
 * comes from in `Sec-Fetch-Site`; only "same-origin" and "none" (typed or bookmarked) pass. Where a
 * client sends no such header, an `Origin` other than the dashboard's is refused. Requests without
 * a body (rotate a link, reset a password) are checked like the others.
 */
export function refuseCrossSite(request: Request, ownOrigin: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) {
    if (site === "same-origin" || site === "none") return;
    throw new ApiError(403, "Cross-site requests cannot change anything here");
  }
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== new URL(ownOrigin).origin) throw new ApiError(403, "Cross-site requests cannot change anything here");
}
