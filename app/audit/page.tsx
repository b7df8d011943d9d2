import type { Metadata } from "next";
import { requirePageUser } from "@/lib/core/auth/session";
import { ApiError } from "@/lib/contract/errors";
import { serverEnv } from "@/lib/core/env/env";
import { auditFormValues, parseAuditQuery, readAuditLog, type AuditListing } from "@/lib/features/audit/query";
import { getStore } from "@/lib/core/store";
import { AuditLog } from "@/components/audit/audit-log";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Audit log" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** Who signed in, changed users, shared, automated and routed: the audit log (admins). */
export default async function AuditPage({ searchParams }: { searchParams: SearchParams }) {
  await requirePageUser("/audit", "admin");
  const env = serverEnv();
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) if (typeof v === "string") params.set(k, v);
  let listing: AuditListing | null = null;
  let error: string | null = null;
  let form = auditFormValues(params);
  try {
    const query = parseAuditQuery(params, env.REPORT_TIMEZONE);
    form = query.form;
    listing = await readAuditLog(await getStore(), query, env.REPORT_TIMEZONE, env.AUDIT_RETENTION_DAYS);
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 400) throw e;
    error = e.message;
  }
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <h1 className="text-2xl font-semibold">Audit log</h1>
      <p className="mt-1 max-w-prose text-sm text-slate-700">
        Sign-ins, changes to users, share links, alert rules, scheduled reports and routing: who, when, from which address, what
        changed and the reason given. Entries are only ever added.
      </p>
      <AuditLog listing={listing} form={form} timeZone={env.REPORT_TIMEZONE} error={error} />
    </main>
  );
}
