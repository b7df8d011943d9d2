/**
 * The browser's side of a long Explore table's workbook: the server writes it (./explore-xlsx.ts)
 * and the browser only saves the file it sends (about 60 bytes a row: 6 MiB for 100,000 rows), never
 * the workbook's cells. While one of the report's answers is still being fetched, the server says so
 * with the job (202); the job is followed as a report is (long polls), then the workbook asked again.
 */
import { actionFor, errorFrom, JSON_HEADERS, RequestError, send } from "@/lib/core/api-client/fetch";
import { LONG_POLL_MS, pollDelay, type JobView } from "@/lib/report/client/api";
import { saveBlob } from "@/lib/report/table/browser-download";

/** Rounds of "an answer is being fetched" or "workbooks are busy" before giving up. */
const MAX_ROUNDS = 12;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Follows a job until it has finished; throws when it failed or was cancelled. */
async function followJob(first: JobView): Promise<void> {
  let job = first;
  for (;;) {
    const s = job.status;
    if (s.state === "done") return;
    if (s.state === "failed") throw new RequestError(s.error.status, s.error.message, s.error.action);
    if (s.state === "cancelled") throw new RequestError(499, "The report was cancelled.", "Run the report again, then download the workbook.");
    const at = Date.now();
    const res = await send(`/api/reports/jobs/${encodeURIComponent(job.id)}?wait=${pollDelay(s, at)}`, { headers: { Accept: "application/json" } });
    if (res.status === 404) throw new RequestError(404, "The report job is gone (it expired or the dashboard restarted).", actionFor(404));
    if (!res.ok) throw await errorFrom(res);
    job = (await res.json()) as JobView;
  }
}

/** Downloads the workbook of the Explore page whose query string is `search`, as `fileName`. */
export async function downloadExploreWorkbook(search: string, fileName: string): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const res = await send(`/api/reports/explore-xlsx?wait=${LONG_POLL_MS}`, { method: "POST", headers: JSON_HEADERS, body: JSON.stringify({ search }) });
    if (res.status === 202) {
      await followJob((await res.json()) as JobView);
      continue;
    }
    if (res.status === 503) {
      const busy = await errorFrom(res);
      if (busy.retryAfter === undefined) throw busy;
      await sleep(busy.retryAfter * 1000);
      continue;
    }
    if (!res.ok) throw await errorFrom(res);
    return saveBlob(await res.blob(), fileName);
  }
  throw new RequestError(503, "The workbook could not be made: the report's answers kept changing while it waited.", "Try again in a minute.");
}
