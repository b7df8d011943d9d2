// GET/POST /api/auth/*: next-auth's own endpoints (csrf, sign-in callback, session, sign-out).
// A malformed callbackUrl is refused here with a 400 (next-auth would answer it with a 500).
import NextAuth from "next-auth";
import { invalidCallbackUrl } from "@/lib/core/auth/callback-url";
import { authOptionsWith } from "@/lib/core/auth/options";
import { getStore } from "@/lib/core/store";
import { pauseStopped } from "@/lib/features/notifications/rights";
import { withdrawAffected } from "@/lib/features/routing/approval";
import { ssoSignIn } from "@/lib/features/users/sso";

// Company sign-in applies the IdP's groups at every sign-in; a changed role is followed as an
// admin's change is (alert rules and scheduled reports paused where they may no longer run,
// pending routing changes whose possible approvers it changes withdrawn).
const authOptions = authOptionsWith({
  ssoSignIn: async (identity, settings, { address }) =>
    ssoSignIn(await getStore(), identity, settings, {
      address,
      afterRightsChange: async (tx, id, change) => {
        await pauseStopped(tx, id);
        await withdrawAffected(tx, id, change);
      },
    }),
});
const nextAuth = NextAuth(authOptions) as (request: Request, context: unknown) => Promise<Response>;

function handler(request: Request, context: unknown): Promise<Response> | Response {
  const problem = invalidCallbackUrl(request);
  if (problem) return Response.json({ error: problem }, { status: 400, headers: { "Cache-Control": "no-store" } });
  return nextAuth(request, context);
}

export { handler as GET, handler as POST };
