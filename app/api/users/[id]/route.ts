// PATCH /api/users/:id: change another user's role, or disable or enable them (admins).
import { apiRoute } from "@/lib/api/handler";
import { getStore } from "@/lib/store";
import { updateUser, UserPatch } from "@/lib/users/admin";

export const PATCH = apiRoute({ role: "admin", params: ["id"], schema: UserPatch }, async ({ user, body, params }) => ({
  user: await updateUser(await getStore(), user, params.id, body),
}));
