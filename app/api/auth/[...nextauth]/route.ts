// GET/POST /api/auth/*: next-auth's own endpoints (csrf, sign-in callback, session, sign-out).
// A malformed callbackUrl is refused here with a 400 (next-auth would answer it with a 500).
import NextAuth from "next-auth";
import { invalidCallbackUrl } from "@/lib/core/auth/callback-url";
import { authOptions } from "@/lib/core/auth/options";

const nextAuth = NextAuth(authOptions) as (request: Request, context: unknown) => Promise<Response>;

function handler(request: Request, context: unknown): Promise<Response> | Response {
  const problem = invalidCallbackUrl(request);
  if (problem) return Response.json({ error: problem }, { status: 400, headers: { "Cache-Control": "no-store" } });
  return nextAuth(request, context);
}

export { handler as GET, handler as POST };
