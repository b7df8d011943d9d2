// GET /api/users/directory: the active users an analyst may name as recipients of alerts and scheduled reports (id, e-mail, role only).
import { apiRoute } from "@/lib/core/route/handler";
import { usersRepo } from "@/lib/core/auth/users";

export const GET = apiRoute({ role: "analyst", store: true }, async ({ store }) => ({
  users: (await usersRepo(store).list()).filter((u) => !u.disabled).map((u) => ({ id: u.id, email: u.email, role: u.role })),
}));
