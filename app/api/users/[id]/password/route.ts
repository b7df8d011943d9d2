// POST /api/users/:id/password: a new generated password for another user, shown once (admins); pending routing changes it concerns are withdrawn.
import { ssoSettings } from "@/lib/core/auth/options";
import { apiRoute } from "@/lib/core/route/handler";
import { withdrawAffected } from "@/lib/features/routing/approval";
import { resetPassword } from "@/lib/features/users/admin";

export const POST = apiRoute({ role: "admin", store: true, params: ["id"] }, async ({ user, params, store }) => resetPassword(store, user, params.id, ssoSettings(), withdrawAffected));
