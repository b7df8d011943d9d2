// @ts-check
/**
 * The dashboard's Next.js configuration: plain JavaScript, as create-t3-app keeps it, importing the
 * validated environment, so a bad configuration stops `next start` and `next dev` with every variable
 * named before anything is served. `next build` runs without the dashboard's environment (CI has
 * none, and no page reads it at build time), so validation depends on the phase rather than on a
 * SKIP_ENV_VALIDATION flag. The schema and the headers are TypeScript, shared with the server code;
 * tsx (already the project's runner) loads them here.
 */
import { PHASE_PRODUCTION_BUILD } from "next/constants.js";
import { tsImport } from "tsx/esm/api";

/** @type {typeof import("./lib/core/env/env-schema")} */
const { parseServerEnv } = await tsImport("./lib/core/env/env-schema.ts", import.meta.url);
/** @type {typeof import("./lib/core/http/security-headers")} */
const { staticSecurityHeaders } = await tsImport("./lib/core/http/security-headers.ts", import.meta.url);

/**
 * @param {string} phase
 * @returns {import("next").NextConfig}
 */
export default function nextConfig(phase) {
  if (phase !== PHASE_PRODUCTION_BUILD) parseServerEnv(process.env);
  return {
    reactStrictMode: true,
    poweredByHeader: false,
    // `npm start` builds committed code that `npm test` has type checked (tsc --noEmit, the same
    // tsconfig); checking it again at every first start would double the wait for nothing.
    typescript: { ignoreBuildErrors: process.env.DASHBOARD_BUILD_TYPECHECKED === "1" },
    // The service and its DuckDB binding are a separate process; keep the dashboard's build to its own files.
    outputFileTracingExcludes: { "*": ["service/**", "data/**", "bench/**"] },
    // The embedded store loads its WebAssembly from node_modules at run time; don't bundle it (pg is
    // external by default).
    serverExternalPackages: ["@electric-sql/pglite", "pg"],
    experimental: {
      // Fewer, larger browser chunks: Turbopack's default leaves each page's first load in several
      // chunks, each gzipped on its own; merged, the same code is smaller on the wire (measured with
      // `npm run bench:ui`, docs/benchmarks.md). What two pages share may then come twice on a
      // navigation between them.
      turbopackChunking: { minChunkSize: 400_000 },
    },
    // Addresses people bookmarked before a page or route took its feature's name keep opening it
    // (308: a POST stays a POST with its body).
    async redirects() {
      return [
        { source: "/metrics", destination: "/definitions", permanent: true },
        { source: "/api/bin-routing", destination: "/api/bin-lookup", permanent: true },
        { source: "/api/bin-routing/:path*", destination: "/api/bin-lookup/:path*", permanent: true },
        ...["alerts", "subscriptions", "inbox"].flatMap((api) => [
          { source: `/api/${api}`, destination: `/api/notifications/${api}`, permanent: true },
          { source: `/api/${api}/:path*`, destination: `/api/notifications/${api}/:path*`, permanent: true },
        ]),
      ];
    },
    async headers() {
      return [{ source: "/:path*", headers: staticSecurityHeaders(process.env.NEXTAUTH_URL) }];
    },
  };
}
