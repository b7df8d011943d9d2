// PATCH /api/users/:id: change another user's role, or disable or enable them (admins).
import { ssoSettings } from "@/lib/core/auth/options";
import { apiRoute } from "@/lib/core/route/handler";
import { pauseStopped } from "@/lib/features/notifications/rights";
import { withdrawAffected } from "@/lib/features/routing/approval";
import { updateUser, UserPatch } from "@/lib/features/users/admin";

export const PATCH = apiRoute({ role: "admin", store: true, params: ["id"], schema: UserPatch }, async ({ user, body, params, store }) => ({
  // The user's alert rules and scheduled reports stop where they may no longer run them (shown paused, with the reason),
  // and pending routing changes whose possible approvers this changes are withdrawn (lib/features/routing/approval.ts).
  user: await updateUser(store, user, params.id, body, ssoSettings(), async (tx, id, change) => {
    await pauseStopped(tx, id);
    await withdrawAffected(tx, id, change);
  }),
}));
