// GET /api/subscriptions: this user's scheduled reports (admins: all). POST: subscribe to a saved report or dashboard (analysts).
import { apiRoute } from "@/lib/core/route/handler";
import { serverEnv } from "@/lib/core/env/env";
import { mailPolicyFrom } from "@/lib/features/notifications/policy";
import { createSubscription, listSubscriptions, SubscriptionInput } from "@/lib/features/notifications/subscriptions";
import { getGateway } from "@/lib/core/upstream";

export const GET = apiRoute({ role: "analyst", store: true }, async ({ user, store }) => ({ subscriptions: await listSubscriptions(store, user) }));

export const POST = apiRoute({ role: "analyst", store: true, schema: SubscriptionInput }, async ({ user, body, store }) => {
  const env = serverEnv();
  const subscription = await createSubscription(store, getGateway(), user, body, { timeZone: env.REPORT_TIMEZONE, secret: env.NEXTAUTH_SECRET, policy: mailPolicyFrom(env) });
  return Response.json({ subscription }, { status: 201 });
});
