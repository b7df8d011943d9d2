import "server-only";
import type { Operation } from "@/lib/contract";
import { NextResponse } from "next/server";
import { getGateway } from "./index";

/** Shared body of the two report routes: an answer at once from cache, else 202 and a job. */
export function submitReport(op: Operation, body: unknown): NextResponse {
  const gateway = getGateway();
  const query = gateway.parse(op, body);
  const out = gateway.submit(op, query);
  if ("cached" in out) {
    return NextResponse.json({ status: { state: "done", result: out.cached }, query }, { headers: { "Cache-Control": "no-store" } });
  }
  return NextResponse.json(out.job, { status: 202, headers: { "Cache-Control": "no-store", Location: `/api/reports/jobs/${out.job.id}` } });
}
