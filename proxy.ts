// Page requests without a valid session cookie go to /login?callbackUrl=…; everything else passes.
// API routes are not redirected: they answer 401/403 JSON themselves (lib/auth/session requireUser),
// and pages check the session again server-side, so this is a convenience, not the gate.
import { getToken } from "next-auth/jwt";
import { NextResponse, type NextRequest } from "next/server";

const PUBLIC_PAGES = [/^\/login\/?$/, /^\/share(\/|$)/];

export async function proxy(request: NextRequest): Promise<NextResponse> {
  const { pathname, search } = request.nextUrl;
  if (pathname.startsWith("/api/") || PUBLIC_PAGES.some((re) => re.test(pathname))) return NextResponse.next();
  const secret = process.env.NEXTAUTH_SECRET;
  const token = secret ? await getToken({ req: request, secret }).catch(() => null) : null;
  if (token) return NextResponse.next();
  const login = new URL("/login", request.url);
  login.searchParams.set("callbackUrl", `${pathname}${search}`);
  return NextResponse.redirect(login);
}

export const config = {
  // Not for build output, images, or files with an extension (favicon.ico, robots.txt, public/*).
  matcher: ["/((?!_next/static|_next/image|_next/data|api/|.*\\.[A-Za-z0-9]+$).*)"],
};
