"use client";
/**
 * Which group and MID each BIN of a list gets under the live configuration and under the one being
 * edited: the service decides both on copies of the rotation state, so no rotation advances and
 * nothing is recorded. Tokens that are not BINs are listed with why, before anything is sent.
 */
import { useId, useState, type FormEvent } from "react";
import { MAX_PREVIEW_BINS, type RoutingDecision, type RoutingPreview } from "@/lib/contract/bin-routing";
import { parseBinList } from "@/lib/features/bin-lookup/lookup";
import type { RoutingConfig } from "@/lib/features/routing/editor";
import { apiFetch, RequestError } from "@/lib/core/api-client/fetch";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { inputClass } from "@/components/ui/field";
import { ScrollTable } from "./live-tables";
import { useMidName } from "./use-mid-name";

const th = "px-3 py-2 text-left font-medium whitespace-nowrap";
const td = "px-3 py-1.5 align-top";

function Decision({ d }: { d: RoutingDecision | null }) {
  const mid = useMidName();
  if (d === null) return <span className="text-red-900">no active MID (the call would be refused)</span>;
  return (
    <span>
      <span className="font-medium">{mid(d.gateway_id)}</span> · {d.group_name} (#{d.group_id}) · {d.is_fallback ? "fallback" : `rule "${d.rule_name}"`}
    </span>
  );
}

const same = (a: RoutingDecision | null, b: RoutingDecision | null) => (a === null || b === null ? a === b : a.group_id === b.group_id && a.gateway_id === b.gateway_id);

/** `config`: the configuration being edited, or null to preview the live one alone. */
export function PreviewPanel({ config, initialBins = "" }: { config: RoutingConfig | null; initialBins?: string }) {
  const id = useId();
  const [text, setText] = useState(initialBins);
  const [error, setError] = useState<string | null>(null);
  const [answer, setAnswer] = useState<RoutingPreview | null>(null);
  const [busy, setBusy] = useState(false);
  const list = parseBinList(text);

  const run = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (list.bins.length === 0) return setError("Enter at least one BIN (6 to 8 digits), separated by spaces, commas or new lines.");
    if (list.bins.length > MAX_PREVIEW_BINS) return setError(`At most ${MAX_PREVIEW_BINS} BINs at once; this list has ${list.bins.length}.`);
    setBusy(true);
    try {
      setAnswer(await apiFetch<RoutingPreview>("/api/routing/preview", { method: "POST", body: config ? { config, bins: list.bins } : { bins: list.bins } }));
    } catch (err) {
      setAnswer(null);
      setError(err instanceof RequestError ? `${err.message} ${err.action}` : "The preview failed.");
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="flex flex-col gap-3" data-testid="routing-preview">
      <form onSubmit={(e) => void run(e)} className="flex flex-col gap-2" aria-label="Preview BINs">
        <label htmlFor={`${id}-bins`} className="text-sm font-medium">
          BINs to preview
        </label>
        <textarea
          id={`${id}-bins`}
          rows={2}
          className={cn(inputClass, "font-mono")}
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-invalid={error !== null}
          aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
          placeholder="414720, 545454"
        />
        <p id={`${id}-hint`} className="text-xs text-slate-600">
          Up to {MAX_PREVIEW_BINS} BINs of 6 to 8 digits. {config ? "Each is decided under the live configuration and under the edited one." : "Each is decided under the live configuration."}
          {list.unused.length > 0 ? ` Not used: ${list.unused.map((u) => `"${u.token}" (${u.reason})`).join(", ")}.` : ""}
        </p>
        {error ? (
          <p id={`${id}-error`} role="alert" className="text-sm font-medium text-red-800">
            {error}
          </p>
        ) : null}
        <div>
          <Button type="submit" disabled={busy}>
            {busy ? "Previewing…" : "Preview"}
          </Button>
        </div>
      </form>
      {answer ? (
        <>
          <p role="status" className="text-sm text-slate-800">
            No rotation advanced: a preview decides on copies of each group&apos;s rotation state and records nothing. Live version {answer.live_version}.
            {answer.proposed_valid ? "" : " The edited configuration is not valid, so it routes nothing (see its problems)."}
          </p>
          <ScrollTable label="Preview of the BINs">
            <table className="w-full text-sm" aria-label="Preview of the BINs">
              <thead className="bg-slate-100">
                <tr>
                  <th scope="col" className={th}>BIN</th>
                  <th scope="col" className={th}>Live</th>
                  {config ? <th scope="col" className={th}>Edited</th> : null}
                  {config ? <th scope="col" className={th}>Changes</th> : null}
                </tr>
              </thead>
              <tbody>
                {answer.rows.map((r) => {
                  const changed = !same(r.live, r.proposed);
                  return (
                    <tr key={r.bin} className={cn("border-t border-slate-200", config && changed ? "bg-amber-50" : "")} data-bin={r.bin}>
                      <th scope="row" className={cn(td, "text-left font-mono font-normal")}>
                        {r.bin}
                      </th>
                      <td className={td}>
                        <Decision d={r.live} />
                      </td>
                      {config ? (
                        <td className={td}>
                          <Decision d={r.proposed} />
                        </td>
                      ) : null}
                      {config ? <td className={cn(td, changed ? "font-medium text-amber-950" : "text-slate-700")}>{changed ? "changes" : "same"}</td> : null}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </ScrollTable>
        </>
      ) : null}
    </div>
  );
}
