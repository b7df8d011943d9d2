/**
 * What the sign-in page says for a next-auth error code. Shared by the server page (no-JS
 * fallback, `?error=`) and the client form. Deliberately one message for every credential failure.
 */
export const THROTTLED_PREFIX = "Throttled:";

export function throttledError(retryAfterSeconds: number): string {
  return `${THROTTLED_PREFIX}${Math.max(1, Math.ceil(retryAfterSeconds))}`;
}

export function signInErrorMessage(error: string | null | undefined): string | null {
  if (!error) return null;
  if (error.startsWith(THROTTLED_PREFIX)) {
    const seconds = Number(error.slice(THROTTLED_PREFIX.length));
    const minutes = Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds / 60) : 15;
    return `Too many sign-in attempts. Try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}.`;
  }
  if (error === "SessionRequired") return "Please sign in to continue.";
  if (error === "CredentialsSignin") return "The e-mail address or password is incorrect.";
  // Company sign-in: the IdP's answer did not hold up (state, PKCE, nonce, issuer, a used code), or the IdP refused.
  if (["OAuthCallback", "OAuthSignin", "Callback", "OAuthCreateAccount", "AccessDenied"].includes(error)) {
    return "Company sign-in did not complete: the identity provider's answer could not be verified. Please try again.";
  }
  return "Sign-in failed. Please try again.";
}

/** Stands in for the dashboard's origin where it is not known; only the comparison matters. */
const SELF = "http://dashboard.invalid";

/**
 * Where a sign-in may send the user: a page of the dashboard itself, as a path. The rule is that
 * the URL the browser would resolve has the dashboard's origin; before resolving, anything a browser
 * strips or rewrites (control characters, tabs and new lines, backslashes) is refused outright, so
 * `/\t/evil.example` cannot become `//evil.example`. `origin` is the dashboard's own (absolute URLs
 * on it are accepted, as next-auth hands them back); without it only paths are accepted.
 */
export function safeCallbackPath(value: string | string[] | null | undefined, fallback = "/", origin?: string): string {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v || v.length > 2000) return fallback;
  if (/[\u0000-\u001f\u007f\\]/.test(v)) return fallback;
  const self = origin ? new URL(origin).origin : SELF;
  let u: URL;
  try {
    u = new URL(v, self);
  } catch {
    return fallback;
  }
  if (u.origin !== self) return fallback;
  // A path that names no authority of its own: "//x" resolves to another origin above, and a
  // relative "x" is refused so the answer never depends on the page it is used from.
  if (!v.startsWith("/") && !v.toLowerCase().startsWith(`${self.toLowerCase()}/`)) return fallback;
  const path = `${u.pathname}${u.search}${u.hash}`;
  // "//localhost:3000//" is this origin, but its path "//" would be read as another host's URL.
  if (path.startsWith("//")) return fallback;
  if (u.pathname === "/login" || u.pathname.startsWith("/api/auth")) return fallback;
  return path;
}
