/**
 * Security headers. Pages get a Content-Security-Policy with a fresh nonce per request (set by
 * proxy.ts, which Next.js reads to put the nonce on its own scripts); every response, API and files
 * included, gets the static headers from next.config.js. Kept free of Next imports so both can use it.
 */

/** The page policy: scripts only from this origin with this request's nonce; never framed. */
export function pagePolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    // 'strict-dynamic': scripts the nonce'd bootstrap loads are trusted; nothing inline without it.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    // Charts and virtualized tables position elements with style attributes.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * Headers on every response. HSTS only when the dashboard is served over HTTPS.
 * @public next.config.js loads this file by path (tsImport), which the unused-export check cannot follow.
 */
export function staticSecurityHeaders(publicUrl: string | undefined): { key: string; value: string }[] {
  const headers = [
    { key: "X-Content-Type-Options", value: "nosniff" },
    { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
    { key: "X-Frame-Options", value: "DENY" },
    // API answers and files: nothing to run, and never framed. Pages add their own full policy.
    { key: "Content-Security-Policy", value: "frame-ancestors 'none'; object-src 'none'; base-uri 'self'" },
  ];
  if (publicUrl?.startsWith("https://")) headers.push({ key: "Strict-Transport-Security", value: "max-age=31536000; includeSubDomains" });
  return headers;
}
