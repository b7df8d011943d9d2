// GET /api/saved-reports/:id/pdf?preset=: the report or dashboard as a PDF, for anyone who may see it.
import { apiRoute } from "@/lib/core/route/handler";
import { pdfApiError, pdfResponse, savedReportPdf } from "@/lib/features/sharing/pdf";

export const GET = apiRoute({ role: "viewer", params: ["id"] }, async ({ user, params, request }) => {
  try {
    const made = await savedReportPdf(user, params.id, { preset: new URL(request.url).searchParams.get("preset") || null, queue: "user" });
    return pdfResponse(made.pdf, made.fileName);
  } catch (e) {
    throw pdfApiError(e);
  }
});
