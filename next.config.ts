import type { NextConfig } from "next";
import { staticSecurityHeaders } from "./lib/security-headers";

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The service and its DuckDB binding are a separate process; keep the dashboard's build to its own files.
  outputFileTracingExcludes: { "*": ["service/**", "data/**", "bench/**"] },
  // The embedded store loads its WebAssembly from node_modules at run time; don't bundle it (pg is
  // external by default).
  serverExternalPackages: ["@electric-sql/pglite", "pg"],
  async headers() {
    return [{ source: "/:path*", headers: staticSecurityHeaders(process.env.NEXTAUTH_URL) }];
  },
};

export default nextConfig;
