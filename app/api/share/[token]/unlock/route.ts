// POST /api/share/:token/unlock: check a share link's password (form post) and set its signed, expiring cookie.
import { headers } from "next/headers";
import { apiRoute } from "@/lib/core/route/handler";
import { requestAddress, shareSecret } from "@/lib/features/sharing/http";
import { unlockShare } from "@/lib/features/sharing/unlock";
import { getStore } from "@/lib/core/store";

export const POST = apiRoute({ role: "public", params: ["token"] }, async ({ params, request }) => {
  const form = await request.formData().catch(() => null);
  const password = form?.get("password");
  return unlockShare(await getStore(), params.token, typeof password === "string" ? password : null, requestAddress(await headers()), shareSecret(), request.url);
});
