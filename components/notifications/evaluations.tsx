"use client";
/**
 * A rule's last evaluations (the latest, the earlier ones behind a disclosure). Display only: the
 * list loads it lazily, so the page's first load hydrates it after the rest (the server drew it).
 */
import { formatInstant } from "@/lib/report/metrics/format";
import type { AlertEvaluation } from "@/lib/features/notifications/model";
import { coverageWords, partlyCovered } from "@/lib/report/periods/coverage";
import { evaluationRecord } from "./answers";

function Evaluation({ e, timeZone }: { e: AlertEvaluation; timeZone: string }) {
  const r = evaluationRecord(e.result);
  const firing = r?.reading ? r.reading.groups.filter((g) => g.fires).length : null;
  const coverage = r?.reading?.previousCoverage;
  return (
    <div className="text-sm text-slate-900">
      {partlyCovered(coverage) ? (
        <p className="text-xs text-amber-950">
          The previous period has {coverageWords(coverage)}: a change against it is not judged, so it does not fire.
        </p>
      ) : null}
      <p>
        <span className="font-medium">{formatInstant(e.evaluatedAt, timeZone)}</span>
        {e.late ? (
          <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-950">Late: for the slot of {formatInstant(e.slot, timeZone)}</span>
        ) : null}
      </p>
      {!r ? (
        <p className="text-slate-700">No result was recorded.</p>
      ) : r.error ? (
        <p className="text-red-800">
          <span className="font-semibold">Not evaluated:</span> {r.error}
        </p>
      ) : r.notices.length > 0 ? (
        <>
          <ul className="list-disc pl-5">
            {r.notices.map((n) => (
              <li key={n.key}>{n.text}</li>
            ))}
          </ul>
          <p className="text-xs text-slate-700">
            Told {r.sent.inbox} in the inbox{r.sent.emails > 0 ? `, ${r.sent.emails} by e-mail` : ""}.
          </p>
          {r.mailWithheld ? <p className="text-xs text-red-800">No e-mail: {r.mailWithheld}.</p> : null}
        </>
      ) : (
        <p className="text-slate-700">
          Nothing new to tell
          {firing !== null && r.reading ? ` (${firing} of ${r.reading.groups.length} ${r.reading.groups.length === 1 ? "group meets" : "groups meet"} the condition)` : ""}.
        </p>
      )}
    </div>
  );
}

export function Evaluations({ evaluations, timeZone, paused }: { evaluations: AlertEvaluation[]; timeZone: string; paused: boolean }) {
  const [latest, ...earlier] = evaluations;
  return (
    <div className="mt-3 border-t border-slate-200 pt-2">
      <h4 className="text-sm font-semibold text-slate-900">Last evaluations</h4>
      {!latest ? (
        <p className="text-sm text-slate-700">{paused ? "Not evaluated yet; it is paused." : "Not evaluated yet: it runs at its next scheduled time."}</p>
      ) : (
        <div className="mt-1 flex flex-col gap-2">
          <Evaluation e={latest} timeZone={timeZone} />
          {earlier.length > 0 ? (
            <details>
              <summary className="cursor-pointer text-sm text-blue-800 underline">Earlier evaluations ({earlier.length})</summary>
              <ol className="mt-2 flex flex-col gap-2">
                {earlier.map((e) => (
                  <li key={e.id}>
                    <Evaluation e={e} timeZone={timeZone} />
                  </li>
                ))}
              </ol>
            </details>
          ) : null}
        </div>
      )}
    </div>
  );
}
