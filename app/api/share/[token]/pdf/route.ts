// GET /api/share/:token/pdf?preset=: the shared report or dashboard as a PDF, for whoever may open the link.
import { apiRoute } from "@/lib/core/route/handler";
import { shareVisitor } from "@/lib/features/sharing/http";
import { pdfApiError, pdfResponse, sharePdf } from "@/lib/features/sharing/pdf";

export const GET = apiRoute({ role: "public", params: ["token"], feature: shareVisitor }, async ({ params, request, feature: visitor }) => {
  try {
    const made = await sharePdf(params.token, { preset: new URL(request.url).searchParams.get("preset") || null, ...visitor });
    return pdfResponse(made.pdf, made.fileName, { "Referrer-Policy": "no-referrer" });
  } catch (e) {
    throw pdfApiError(e);
  }
});
