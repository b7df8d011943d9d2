// PATCH /api/users/:id: change another user's role, or disable or enable them (admins).
import { apiRoute } from "@/lib/api/handler";
import { getStore } from "@/lib/store";
import { pauseStopped } from "@/lib/notifications/rights";
import { withdrawAffected } from "@/lib/routing/approval";
import { updateUser, UserPatch } from "@/lib/users/admin";

export const PATCH = apiRoute({ role: "admin", params: ["id"], schema: UserPatch }, async ({ user, body, params }) => ({
  // The user's alert rules and scheduled reports stop where they may no longer run them (shown paused, with the reason),
  // and pending routing changes whose possible approvers this changes are withdrawn (lib/routing/approval.ts).
  user: await updateUser(await getStore(), user, params.id, body, async (tx, id, change) => {
    await pauseStopped(tx, id);
    await withdrawAffected(tx, id, change);
  }),
}));
