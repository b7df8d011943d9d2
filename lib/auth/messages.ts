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
  if (error === "CredentialsSignin" || error === "AccessDenied") return "The e-mail address or password is incorrect.";
  return "Sign-in failed. Please try again.";
}

/** Only same-site paths: a callbackUrl must never send the user to another origin. */
export function safeCallbackPath(value: string | string[] | null | undefined, fallback = "/"): string {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return fallback;
  let path = v;
  // next-auth itself may hand back an absolute URL on our own origin; keep its path.
  if (/^https?:\/\//i.test(path)) {
    try {
      const u = new URL(path);
      path = `${u.pathname}${u.search}${u.hash}`;
    } catch {
      return fallback;
    }
  }
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return fallback;
  if (path === "/login" || path.startsWith("/login?") || path.startsWith("/api/auth")) return fallback;
  return path;
}
