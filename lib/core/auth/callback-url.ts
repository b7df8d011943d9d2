/**
 * next-auth answers a `callbackUrl` (query parameter or its cookie) that is not an http(s) URL with
 * a 500 ("server configuration"); the sign-in routes refuse it first with a 400 that says what is
 * wrong. Its own test (`isValidHttpUrl` in next-auth/core/lib/assert.js) is what is repeated here.
 */
const COOKIE_NAMES = ["next-auth.callback-url", "__Secure-next-auth.callback-url"];

function isHttpUrl(value: string, base: string): boolean {
  try {
    return /^https?:$/.test(new URL(value, value.startsWith("/") ? base : undefined).protocol);
  } catch {
    return false;
  }
}

/** Why the request's callbackUrl cannot be used, or null when it has none or a usable one. */
export function invalidCallbackUrl(request: Request): string | null {
  const url = new URL(request.url);
  const fromQuery = url.searchParams.get("callbackUrl");
  if (fromQuery && !isHttpUrl(fromQuery, url.origin)) return "callbackUrl must be a path on this site, such as /explore";
  const cookies = (request.headers.get("cookie") ?? "").split(";").map((c) => c.trim());
  for (const c of cookies) {
    const eq = c.indexOf("=");
    if (eq < 0 || !COOKIE_NAMES.includes(c.slice(0, eq))) continue;
    let value: string;
    try {
      value = decodeURIComponent(c.slice(eq + 1));
    } catch {
      return "The sign-in return address kept in a cookie is not readable; clear the site's cookies and sign in again";
    }
    if (value && !isHttpUrl(value, url.origin)) return "The sign-in return address kept in a cookie is not a URL; clear the site's cookies and sign in again";
  }
  return null;
}
