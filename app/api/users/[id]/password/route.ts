// POST /api/users/:id/password: a new generated password for another user, shown once (admins); pending routing changes it concerns are withdrawn.
import { apiRoute } from "@/lib/api/handler";
import { getStore } from "@/lib/store";
import { withdrawAffected } from "@/lib/routing/approval";
import { resetPassword } from "@/lib/users/admin";

export const POST = apiRoute({ role: "admin", params: ["id"] }, async ({ user, params }) => resetPassword(await getStore(), user, params.id, withdrawAffected));
