// PATCH /api/subscriptions/:id edits or pauses it (owner or admin); DELETE deletes it and revokes its share link.
import { apiRoute } from "@/lib/core/route/handler";
import { deleteSubscription, SubscriptionPatch, updateSubscription } from "@/lib/features/notifications/subscriptions";
import { getStore } from "@/lib/core/store";
import { mailPolicy } from "@/lib/features/notifications/runtime";
import { serverEnv } from "@/lib/core/env/env";
import { getGateway } from "@/lib/core/upstream";

export const PATCH = apiRoute({ role: "analyst", params: ["id"], schema: SubscriptionPatch }, async ({ user, params, body }) => ({
  subscription: await updateSubscription(await getStore(), user, params.id, body, {
    policy: mailPolicy(),
    gateway: getGateway(),
    timeZone: serverEnv().REPORT_TIMEZONE,
    secret: serverEnv().NEXTAUTH_SECRET,
  }),
}));

export const DELETE = apiRoute({ role: "analyst", params: ["id"] }, async ({ user, params }) => deleteSubscription(await getStore(), user, params.id));
