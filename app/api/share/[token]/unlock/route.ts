// POST /api/share/:token/unlock: check a share link's password (form post) and set its signed, expiring cookie.
import { headers } from "next/headers";
import { apiRoute } from "@/lib/core/route/handler";
import { requestAddress, shareSecret } from "@/lib/features/sharing/http";
import { unlockShare } from "@/lib/features/sharing/unlock";

export const POST = apiRoute({ role: "public", store: true, params: ["token"] }, async ({ params, request, store }) => {
  const form = await request.formData().catch(() => null);
  const password = form?.get("password");
  return unlockShare(store, params.token, typeof password === "string" ? password : null, requestAddress(await headers()), shareSecret(), request.url);
});
