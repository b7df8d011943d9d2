// PATCH /api/notifications/subscriptions/:id edits or pauses it (owner or admin); DELETE deletes it and revokes its share link.
import { apiRoute } from "@/lib/core/route/handler";
import { deleteSubscription, SubscriptionPatch, updateSubscription } from "@/lib/features/notifications/subscriptions";
import { mailPolicy } from "@/lib/features/notifications/slots";

export const PATCH = apiRoute({ role: "analyst", store: true, gateway: true, params: ["id"], schema: SubscriptionPatch }, async ({ user, params, body, store, env, gateway }) => ({
  subscription: await updateSubscription(store, user, params.id, body, { policy: mailPolicy(), gateway, timeZone: env.REPORT_TIMEZONE, secret: env.NEXTAUTH_SECRET }),
}));

export const DELETE = apiRoute({ role: "analyst", store: true, params: ["id"] }, async ({ user, params, store }) => deleteSubscription(store, user, params.id));
