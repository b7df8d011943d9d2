// GET /api/users: every dashboard user (admins). POST: create one with a generated password, shown once.
import { apiRoute } from "@/lib/api/handler";
import { ApiError } from "@/lib/contract/errors";
import { getStore } from "@/lib/store";
import { createUser, listUsers, NewUserInput } from "@/lib/users/admin";

export const GET = apiRoute({ role: "admin" }, async () => ({ users: await listUsers(await getStore()) }));

export const POST = apiRoute({ role: "admin", json: true }, async ({ body }) =>
  Response.json(await createUser(await getStore(), ApiError.parse(NewUserInput, body)), { status: 201, headers: { "Cache-Control": "no-store" } }),
);
