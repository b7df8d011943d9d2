// GET /api/notifications/subscriptions: this user's scheduled reports (admins: all). POST: subscribe to a saved report or dashboard (analysts).
import { apiRoute } from "@/lib/core/route/handler";
import { mailPolicyFrom } from "@/lib/features/notifications/policy";
import { createSubscription, listSubscriptions, SubscriptionInput } from "@/lib/features/notifications/subscriptions";

export const GET = apiRoute({ role: "analyst", store: true }, async ({ user, store }) => ({ subscriptions: await listSubscriptions(store, user) }));

export const POST = apiRoute({ role: "analyst", store: true, schema: SubscriptionInput, gateway: true }, async ({ user, body, store, env, gateway }) => {
  const subscription = await createSubscription(store, gateway, user, body, { timeZone: env.REPORT_TIMEZONE, secret: env.NEXTAUTH_SECRET, policy: mailPolicyFrom(env) });
  return Response.json({ subscription }, { status: 201 });
});
