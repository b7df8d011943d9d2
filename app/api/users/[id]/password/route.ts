// POST /api/users/:id/password: give another user a new generated password, shown once; their sessions end (admins).
import { apiRoute } from "@/lib/api/handler";
import { getStore } from "@/lib/store";
import { resetPassword } from "@/lib/users/admin";

export const POST = apiRoute({ role: "admin", params: ["id"] }, async ({ user, params }) => resetPassword(await getStore(), user, params.id));
