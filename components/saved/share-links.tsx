"use client";
/**
 * Share links of one saved report: create (expiry, optional password, live or snapshot, presets the
 * viewer may switch to), list with views, revoke and rotate. The token is shown once, when made.
 */
import { apiFetch } from "@/lib/report-client/fetch";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { EXPLORE_PRESETS, COHORT_PRESETS, presetLabel, type RangePreset } from "@/lib/report-state/range";
import type { SavedPage } from "@/lib/store/saved-reports";
import { Providers } from "@/components/providers";

interface LinkView {
  id: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  hasPassword: boolean;
  mode: "live" | "snapshot";
  allowedPresets: string[];
  viewCount: number;
  lastViewedAt: string | null;
}

export function ShareLinks({ reportId, page }: { reportId: string; page: SavedPage }) {
  const base = `/api/saved-reports/${reportId}/links`;
  const formId = useId();
  const queryClient = useQueryClient();
  const linksQuery = useQuery({ queryKey: ["share-links", reportId], queryFn: () => apiFetch<{ links: LinkView[] }>(base), staleTime: 0 });
  const links = linksQuery.data?.links ?? null;
  const [error, setError] = useState<string | null>(null);
  const [fresh, setFresh] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [mode, setMode] = useState<"live" | "snapshot">("live");
  const [days, setDays] = useState(30);
  const [password, setPassword] = useState("");
  const [presets, setPresets] = useState<RangePreset[]>([]);
  const presetChoices = page === "cohorts" || page === "dashboard" ? COHORT_PRESETS : EXPLORE_PRESETS;

  const load = () => queryClient.invalidateQueries({ queryKey: ["share-links", reportId] });

  const act = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      await load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const create = () =>
    act(async () => {
      const body = { mode, expires_in_days: days, ...(password ? { password } : {}), ...(mode === "live" && presets.length ? { allowed_presets: presets } : {}) };
      const r = await apiFetch<{ url: string }>(base, { method: "POST", body });
      setFresh(r.url);
      setPassword("");
    });

  return (
    <div className="mt-3 space-y-3 rounded border border-slate-200 bg-slate-50 p-3">
      <form
        aria-label="New share link"
        className="grid gap-3 sm:grid-cols-2"
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        {page === "monitor" ? (
          <p className="text-sm text-slate-700">A monitor link is always live: this month and the two before, as of when it is opened.</p>
        ) : (
        <fieldset className="text-sm">
          <legend className="font-medium">Data</legend>
          <label className="mr-4 inline-flex items-center gap-1">
            <input type="radio" name={`${formId}-mode`} checked={mode === "live"} onChange={() => setMode("live")} /> Live (fresh when opened)
          </label>
          <label className="inline-flex items-center gap-1">
            <input type="radio" name={`${formId}-mode`} checked={mode === "snapshot"} onChange={() => setMode("snapshot")} /> Snapshot (frozen now)
          </label>
        </fieldset>
        )}
        <label className="text-sm">
          <span className="block font-medium">Expires after (days)</span>
          <input type="number" min={1} max={365} value={days} onChange={(e) => setDays(Number(e.target.value))} className="mt-1 w-28 rounded border border-slate-300 px-2 py-1" />
        </label>
        <label className="text-sm">
          <span className="block font-medium">Password (optional)</span>
          <input type="password" minLength={8} value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" className="mt-1 w-full rounded border border-slate-300 px-2 py-1" />
        </label>
        {mode === "live" && page !== "monitor" ? (
          <fieldset className="text-sm">
            <legend className="font-medium">Viewer may switch to</legend>
            <div className="flex flex-wrap gap-x-3">
              {presetChoices.map((p) => (
                <label key={p} className="inline-flex items-center gap-1">
                  <input
                    type="checkbox"
                    checked={presets.includes(p)}
                    onChange={(e) => setPresets((cur) => (e.target.checked ? [...cur, p] : cur.filter((x) => x !== p)))}
                  />
                  {presetLabel(p)}
                </label>
              ))}
            </div>
          </fieldset>
        ) : null}
        <div className="sm:col-span-2">
          <Button type="submit" variant="primary" disabled={busy}>
            Create share link
          </Button>
        </div>
      </form>
      {fresh ? (
        <p role="status" className="text-sm">
          New link (copy it now; it is not shown again):{" "}
          <input readOnly value={fresh} aria-label="New share link URL" className="w-full rounded border border-slate-300 bg-white px-2 py-1 font-mono text-xs" onFocus={(e) => e.currentTarget.select()} />
        </p>
      ) : null}
      {error || linksQuery.error ? (
        <p role="alert" className="text-sm text-red-800">
          {error ?? (linksQuery.error instanceof Error ? linksQuery.error.message : "Could not load the links")}
        </p>
      ) : null}
      {links && links.length > 0 ? (
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Share links</caption>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Kind</th>
              <th scope="col">Expires</th>
              <th scope="col">Views</th>
              <th scope="col">Last view</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {links.map((l) => (
              <tr key={l.id} className="border-t border-slate-200">
                <td>{l.createdAt.slice(0, 10)}</td>
                <td>
                  {l.mode}
                  {l.hasPassword ? ", password" : ""}
                </td>
                <td>{l.revokedAt ? "revoked" : l.expiresAt.slice(0, 10)}</td>
                <td>{l.viewCount}</td>
                <td>{l.lastViewedAt ? l.lastViewedAt.replace("T", " ").slice(0, 16) : "never"}</td>
                <td className="space-x-2 py-1 text-right">
                  {l.revokedAt ? null : (
                    <>
                      <Button size="sm" disabled={busy} onClick={() => act(async () => setFresh((await apiFetch<{ url: string }>(`${base}/${l.id}/rotate`, { method: "POST" })).url))}>
                        Rotate
                      </Button>
                      <Button size="sm" variant="danger" disabled={busy} onClick={() => act(async () => void (await apiFetch(`${base}/${l.id}`, { method: "DELETE" })))}>
                        Revoke
                      </Button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : links ? (
        <p className="text-sm text-slate-700">No share links yet.</p>
      ) : null}
    </div>
  );
}

/** The panel with its query client, for pages that have none (lazy-share-links.tsx loads it). */
export function ShareLinksPanel(props: { reportId: string; page: SavedPage }) {
  return (
    <Providers>
      <ShareLinks {...props} />
    </Providers>
  );
}
