// GET /api/subscriptions: this user's scheduled reports (admins: all). POST: subscribe to a saved report or dashboard (analysts).
import { apiRoute } from "@/lib/core/route/handler";
import { serverEnv } from "@/lib/core/env/env";
import { mailPolicyFrom } from "@/lib/features/notifications/policy";
import { createSubscription, listSubscriptions, SubscriptionInput } from "@/lib/features/notifications/subscriptions";
import { getStore } from "@/lib/core/store";
import { getGateway } from "@/lib/core/upstream";

export const GET = apiRoute({ role: "analyst" }, async ({ user }) => ({ subscriptions: await listSubscriptions(await getStore(), user) }));

export const POST = apiRoute({ role: "analyst", schema: SubscriptionInput }, async ({ user, body }) => {
  const env = serverEnv();
  const subscription = await createSubscription(await getStore(), getGateway(), user, body, { timeZone: env.REPORT_TIMEZONE, secret: env.NEXTAUTH_SECRET, policy: mailPolicyFrom(env) });
  return Response.json({ subscription }, { status: 201 });
});
