import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The service and its DuckDB binding are a separate process; keep the dashboard's build to its own files.
  outputFileTracingExcludes: { "*": ["service/**", "data/**", "bench/**"] },
};

export default nextConfig;
