// GET /api/share/:token/pdf?preset=: the shared report or dashboard as a PDF, for whoever may open the link.
import { cookies, headers } from "next/headers";
import { apiRoute } from "@/lib/core/route/handler";
import { requestAddress } from "@/lib/features/sharing/http";
import { pdfApiError, pdfResponse, sharePdf } from "@/lib/features/sharing/pdf";

export const GET = apiRoute({ role: "public", params: ["token"] }, async ({ params, request }) => {
  const jar = await cookies();
  try {
    const made = await sharePdf(params.token, {
      preset: new URL(request.url).searchParams.get("preset") || null,
      address: requestAddress(await headers()),
      cookie: (name) => jar.get(name)?.value,
    });
    return pdfResponse(made.pdf, made.fileName, { "Referrer-Policy": "no-referrer" });
  } catch (e) {
    throw pdfApiError(e);
  }
});
