// GET /api/health: liveness for launchers and probes, no session needed; says whether the store answers.
import { NextResponse } from "next/server";
import { getStore } from "@/lib/core/store";

export const dynamic = "force-dynamic";

export async function GET(): Promise<NextResponse> {
  let store = false;
  try {
    await (await getStore()).query("SELECT 1");
    store = true;
  } catch (e) {
    // The reason goes to the log only; it can name paths or hosts.
    console.error(JSON.stringify({ level: "error", msg: "health: store unavailable", error: e instanceof Error ? e.message : String(e) }));
  }
  return NextResponse.json(
    { status: store ? "ok" : "degraded", store },
    { status: store ? 200 : 503, headers: { "Cache-Control": "no-store" } },
  );
}
