// GET /api/saved-reports: the saved reports this user may open. POST: save the current report (analysts).
import { apiRoute } from "@/lib/api/handler";
import { ApiError } from "@/lib/contract/errors";
import { canonicalParams, SavedReportInput } from "@/lib/sharing/http";
import { getStore } from "@/lib/store";
import { savedReportsRepo } from "@/lib/store/saved-reports";

export const GET = apiRoute({ role: "viewer" }, async ({ user }) => ({ reports: await savedReportsRepo(await getStore()).listVisible(user) }));

export const POST = apiRoute({ role: "analyst", json: true }, async ({ user, body }) => {
  const input = ApiError.parse(SavedReportInput, body);
  const report = await savedReportsRepo(await getStore()).create({
    ownerId: user.id,
    name: input.name,
    page: input.page,
    params: canonicalParams(input.page, input.params),
    sharedWithTeam: input.shared_with_team ?? false,
  });
  return Response.json({ report }, { status: 201 });
});
