// POST /api/bin-lookup/evidence: the last 90 full days of up to 100 BINs per gateway (attempts, approval
// rate, chargeback rate, best gateway), as one report through the gateway; 202 "pending" while it is queued.
import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/core/route/handler";
import { BinEvidenceRequestSchema } from "@/lib/features/bin-lookup/evidence";
import { binEvidence } from "@/lib/features/bin-lookup/upstream";

export const POST = apiRoute({ role: "analyst", schema: BinEvidenceRequestSchema, gateway: true }, async ({ body, env, gateway }) => {
  const answer = await binEvidence(gateway, body.bins, { minAttempts: env.BIN_EVIDENCE_MIN_ATTEMPTS });
  return NextResponse.json(answer, { status: answer.state === "pending" ? 202 : 200, headers: { "Cache-Control": "no-store" } });
});
