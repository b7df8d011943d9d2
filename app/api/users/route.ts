// GET /api/users: every dashboard user (admins). POST: create one with a generated password, shown once.
import { apiRoute } from "@/lib/core/route/handler";
import { getStore } from "@/lib/core/store";
import { createUser, listUsers, NewUserInput } from "@/lib/features/users/admin";

export const GET = apiRoute({ role: "admin" }, async () => ({ users: await listUsers(await getStore()) }));

export const POST = apiRoute({ role: "admin", schema: NewUserInput }, async ({ user, body }) =>
  Response.json(await createUser(await getStore(), user, body), { status: 201, headers: { "Cache-Control": "no-store" } }),
);
