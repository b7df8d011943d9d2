// Page requests without a valid session cookie go to /login?callbackUrl=…; everything else passes.
// API routes are not redirected: they answer 401/403 JSON themselves (lib/core/auth/session requireUser),
// and pages check the session again server-side, so this is a convenience, not the gate.
import { getToken } from "next-auth/jwt";
import { NextResponse, type NextRequest } from "next/server";
import { pagePolicy } from "./lib/core/http/security-headers";

// The print views answer the dashboard's own PDF renderer only, by its print token (lib/features/sharing/pdf.ts).
const PRINT_PAGES = /^\/print\/(reports|share)\//;
const PUBLIC_PAGES = [/^\/login(\/refused)?\/?$/, /^\/share(\/|$)/, PRINT_PAGES];
/** lib/core/pdf/print-token.ts's PRINT_TOKEN_HEADER (not imported: that module signs with node:crypto). */
const PRINT_TOKEN_HEADER = "x-print-token";

/** Lets the page render with a fresh CSP nonce (Next.js puts it on its scripts). */
function withNonce(request: NextRequest): NextResponse {
  const nonce = btoa(crypto.randomUUID());
  const policy = pagePolicy(nonce, process.env.NODE_ENV !== "production");
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("Content-Security-Policy", policy);
  const res = NextResponse.next({ request: { headers } });
  res.headers.set("Content-Security-Policy", policy);
  return res;
}

export async function proxy(request: NextRequest): Promise<NextResponse> {
  const { pathname, search } = request.nextUrl;
  if (pathname.startsWith("/api/")) return NextResponse.next();
  // Without a print token a print view is refused before it draws (and waits for) anything; with one,
  // the page checks it.
  if (PRINT_PAGES.test(pathname) && !request.headers.get(PRINT_TOKEN_HEADER)) return new NextResponse("Not found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  if (PUBLIC_PAGES.some((re) => re.test(pathname))) return withNonce(request);
  const secret = process.env.NEXTAUTH_SECRET;
  const token = secret ? await getToken({ req: request, secret }).catch(() => null) : null;
  if (token) return withNonce(request);
  const login = new URL("/login", request.url);
  login.searchParams.set("callbackUrl", `${pathname}${search}`);
  return NextResponse.redirect(login);
}

export const config = {
  // Not for build output, the API, or the files in public/ (named one by one: a page path that ends
  // in an extension, /share/abc.png, is still a page and gets the page policy with its nonce).
  matcher: ["/((?!_next/static|_next/image|_next/data|api/|favicon\\.svg$|robots\\.txt$).*)"],
};
