// POST /api/share/:token/unlock: check a share link's password (form post) and set its signed, expiring cookie.
import { headers } from "next/headers";
import { apiRoute } from "@/lib/api/handler";
import { requestAddress, shareSecret } from "@/lib/sharing/http";
import { unlockShare } from "@/lib/sharing/unlock";
import { getStore } from "@/lib/store";

export const POST = apiRoute({ role: "public", params: ["token"] }, async ({ params, request }) => {
  const form = await request.formData().catch(() => null);
  const password = form?.get("password");
  return unlockShare(await getStore(), params.token, typeof password === "string" ? password : null, requestAddress(await headers()), shareSecret(), request.url);
});
