// PATCH /api/subscriptions/:id edits or pauses it (owner or admin); DELETE deletes it and revokes its share link.
import { apiRoute } from "@/lib/core/route/handler";
import { deleteSubscription, SubscriptionPatch, updateSubscription } from "@/lib/features/notifications/subscriptions";
import { mailPolicy } from "@/lib/features/notifications/slots";
import { serverEnv } from "@/lib/core/env/env";
import { getGateway } from "@/lib/core/upstream";

export const PATCH = apiRoute({ role: "analyst", store: true, params: ["id"], schema: SubscriptionPatch }, async ({ user, params, body, store }) => ({
  subscription: await updateSubscription(store, user, params.id, body, {
    policy: mailPolicy(),
    gateway: getGateway(),
    timeZone: serverEnv().REPORT_TIMEZONE,
    secret: serverEnv().NEXTAUTH_SECRET,
  }),
}));

export const DELETE = apiRoute({ role: "analyst", store: true, params: ["id"] }, async ({ user, params, store }) => deleteSubscription(store, user, params.id));
