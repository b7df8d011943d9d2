// POST /api/reports/explore-xlsx: Explore's rows table as an Excel workbook streamed from the server
// (body {"search": the Explore page's query string}; ?wait=ms as the report routes): 202 with the job
// to poll while an answer is being fetched, after which the same request gives the file.
import { z } from "zod";
import { apiRoute, otherMethodsThanPost } from "@/lib/core/route/handler";
import { waitParam } from "@/lib/report/route";
import { exploreWorkbookResponse } from "@/lib/report/export/explore-xlsx";

const Body = z.strictObject({ search: z.string().max(8_000) });

export const POST = apiRoute({ role: "analyst", schema: Body, gateway: true }, async ({ user, body, request, env, gateway }) =>
  exploreWorkbookResponse(body.search, { gateway, owner: user.id, timeZone: env.REPORT_TIMEZONE, waitMs: waitParam(request) }),
);

// Any other method: the contract's 405 envelope, as every answer of this route is.
export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethodsThanPost();
