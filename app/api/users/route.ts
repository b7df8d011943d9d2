// GET /api/users: every dashboard user (admins). POST: create one with a generated password, shown once.
import { ssoSettings } from "@/lib/core/auth/options";
import { apiRoute } from "@/lib/core/route/handler";
import { createUser, listUsers, NewUserInput } from "@/lib/features/users/admin";

export const GET = apiRoute({ role: "admin", store: true }, async ({ store }) => ({ users: await listUsers(store, ssoSettings()) }));

export const POST = apiRoute({ role: "admin", store: true, schema: NewUserInput }, async ({ user, body, store }) =>
  Response.json(await createUser(store, user, body, ssoSettings()), { status: 201, headers: { "Cache-Control": "no-store" } }),
);
