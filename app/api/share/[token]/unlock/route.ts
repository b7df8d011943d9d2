// POST /api/share/:token/unlock: check a share link's password (form post) and set its signed, expiring cookie.
import { apiRoute } from "@/lib/core/route/handler";
import { shareSecret, shareVisitor } from "@/lib/features/sharing/http";
import { unlockShare } from "@/lib/features/sharing/unlock";

export const POST = apiRoute({ role: "public", store: true, params: ["token"], feature: shareVisitor }, async ({ params, request, store, feature: visitor }) => {
  const form = await request.formData().catch(() => null);
  const password = form?.get("password");
  return unlockShare(store, params.token, typeof password === "string" ? password : null, visitor.address, shareSecret(), request.url);
});
