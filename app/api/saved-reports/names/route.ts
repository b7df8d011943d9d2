// GET /api/saved-reports/names?page=explore: the caller's own saved items of that page, id and name,
// for the naming dialog's same-name warning (analysts: the ones who save).
import { apiRoute } from "@/lib/core/route/handler";
import { ApiError } from "@/lib/contract/errors";
import { ownNames } from "@/lib/features/saved-reports";
import { SAVED_PAGES } from "@/lib/features/saved-reports/model";

export const GET = apiRoute({ role: "analyst", store: true }, async ({ user, request, store }) => {
  const asked = new URL(request.url).searchParams.get("page");
  const page = SAVED_PAGES.find((p) => p === asked);
  if (page === undefined) throw ApiError.badRequest(`page must be one of ${SAVED_PAGES.join(", ")}`, [{ path: "page", message: "unknown page" }]);
  return { items: await ownNames(store, user, page) };
});
