/** A report operation's route (SPEC.md §2–3), on the owner and on every replica alike. */
import { OPERATION_ROWS, OPERATION_SCHEMAS, OPERATION_TABLE, type Operation } from "@/lib/contract";
import { ApiError } from "@/lib/contract/errors";
import type { Route } from "../http/route";
import type { ReportEngine } from "./run";

export function reportRoute(op: Operation, reports: Pick<ReportEngine, "run">): Route {
  return {
    method: "POST",
    auth: "client",
    bucket: "report",
    async handle(body, ctx) {
      const result = await reports.run(op, ApiError.parse(OPERATION_SCHEMAS[op].request, body));
      return {
        body: {
          success: true,
          code: 200,
          message: OPERATION_TABLE[op].message,
          data: result.data,
          pagination: result.pagination,
          timestamp: ctx.now.toISOString(),
        },
      };
    },
  };
}

/** Every report operation's route, by its path. */
export function reportRoutes(reports: Pick<ReportEngine, "run">): Record<string, Route[]> {
  return Object.fromEntries(OPERATION_ROWS.map((o) => [o.servicePath, [reportRoute(o.op, reports)]]));
}
