/**
 * The audit log page's body: the filter form (a plain GET form, so the filters are the URL and work
 * without script), the CSV link for the same filters, and the entries, newest first, a page at a time.
 */
import { AUDIT_KIND_OPTIONS, auditQueryString, type AuditFormValues, type AuditListing } from "@/lib/features/audit/query";
import { formatInstant } from "@/lib/report/metrics/format";
import { inputClass } from "@/components/ui/field";

const th = "border-b border-slate-300 px-2 py-2 text-left font-semibold";
const td = "border-b border-slate-200 px-2 py-1.5 align-top";
const linkButton =
  "inline-flex min-h-10 items-center justify-center rounded-md border border-slate-300 bg-white px-4 text-sm font-medium text-slate-900 hover:bg-slate-100";

export function AuditLog({ listing, form, timeZone, error }: { listing: AuditListing | null; form: AuditFormValues; timeZone: string; error: string | null }) {
  const csvHref = `/api/audit?${auditQueryString(form, { format: "csv" })}`;
  return (
    <>
      <form method="get" action="/audit" aria-label="Filter the audit log" className="mt-4 grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-6 lg:items-end">
        <div className="flex flex-col gap-1">
          <label htmlFor="audit-kind" className="text-sm font-medium text-slate-900">Kind</label>
          <select id="audit-kind" name="kind" defaultValue={form.kind} className={inputClass}>
            <option value="">Every kind</option>
            {AUDIT_KIND_OPTIONS.map((o) => (
              <option key={o.value} value={o.value}>{o.label}</option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="audit-actor" className="text-sm font-medium text-slate-900">Actor e-mail contains</label>
          <input id="audit-actor" name="actor" defaultValue={form.actor} maxLength={320} className={inputClass} />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="audit-subject" className="text-sm font-medium text-slate-900">Subject contains</label>
          <input id="audit-subject" name="subject" defaultValue={form.subject} maxLength={200} className={inputClass} />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="audit-from" className="text-sm font-medium text-slate-900">From (day, {timeZone})</label>
          <input id="audit-from" name="from" type="date" defaultValue={form.from} className={inputClass} />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="audit-to" className="text-sm font-medium text-slate-900">To (day, included)</label>
          <input id="audit-to" name="to" type="date" defaultValue={form.to} className={inputClass} />
        </div>
        <div className="flex gap-2">
          <button type="submit" className="inline-flex min-h-10 items-center rounded-md bg-blue-700 px-4 text-sm font-medium text-white hover:bg-blue-800">
            Filter
          </button>
          <a href="/audit" className={linkButton}>Clear</a>
        </div>
      </form>

      {error ? (
        <p role="alert" className="mt-4 rounded-md border border-red-300 bg-red-50 px-4 py-2 text-sm text-red-950">{error}</p>
      ) : null}

      {listing ? (
        <>
          <div className="mt-4 flex flex-wrap items-center gap-3">
            <p className="text-sm text-slate-800" role="status">
              {listing.matching === 1 ? "1 entry matches" : `${listing.matching.toLocaleString("en-US")} entries match`}.
            </p>
            <a href={csvHref} download className={linkButton}>Download CSV</a>
          </div>
          {/* Scrolls sideways on a phone: focusable, so the keyboard can scroll it too. */}
          <div className="mt-3 overflow-x-auto" tabIndex={0} role="region" aria-label="Audit log entries">
            <table className="w-full min-w-[60rem] border-collapse text-sm">
              <caption className="sr-only">Audit log entries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col" className={th}>Time ({timeZone})</th>
                  <th scope="col" className={th}>Action</th>
                  <th scope="col" className={th}>Actor</th>
                  <th scope="col" className={th}>Address</th>
                  <th scope="col" className={th}>Subject</th>
                  <th scope="col" className={th}>Details</th>
                  <th scope="col" className={th}>Reason</th>
                </tr>
              </thead>
              <tbody>
                {listing.entries.map((e) => (
                  <tr key={e.id} data-action={e.action}>
                    <td className={`${td} whitespace-nowrap tabular-nums`}>
                      <time dateTime={e.at}>{e.at_local.slice(0, 19)}</time>
                    </td>
                    <td className={td}>{e.action_label}</td>
                    <td className={`${td} break-all`}>{e.actor}</td>
                    <td className={`${td} break-all`}>{e.address ?? "unknown"}</td>
                    <td className={`${td} break-all`}>{e.subject ?? ""}</td>
                    <td className={td}>{e.details}</td>
                    <td className={td}>{e.reason ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {listing.entries.length === 0 ? <p className="mt-3 text-sm text-slate-700">No entry matches these filters.</p> : null}
          </div>
          <nav aria-label="Audit log pages" className="mt-3 flex gap-2">
            {listing.entries.length > 0 ? (
              <a href={`/audit?${auditQueryString(form)}`} className={linkButton}>Newest</a>
            ) : null}
            {listing.next ? (
              <a href={`/audit?${auditQueryString(form, { before: listing.next })}`} className={linkButton}>Older entries</a>
            ) : null}
          </nav>
          <p className="mt-4 text-sm text-slate-700">
            Entries are kept for {listing.retention_days} days (AUDIT_RETENTION_DAYS) and then deleted by a daily job that logs how
            many it deleted; nothing else removes them.{" "}
            {listing.oldest ? `The oldest entry kept is from ${formatInstant(listing.oldest, timeZone)}.` : "The log is empty."}
          </p>
        </>
      ) : null}
    </>
  );
}
