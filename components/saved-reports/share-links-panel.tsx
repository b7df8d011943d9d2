"use client";
/**
 * Share links of one saved report: create (label, expiry in hours or days, optional password, live
 * or snapshot, presets the viewer may switch to), list with views, revoke and rotate after asking.
 * The whole URL is shown once, when made, with a button to copy it; the list names each link by its
 * label, the token's last characters and when it was made.
 */
import { apiFetch } from "@/lib/core/api-client/fetch";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { formatInstant } from "@/lib/report/metrics/format";
import { describeLink, tailText } from "@/lib/features/sharing/link-view";
import { EXPLORE_PRESETS, COHORT_PRESETS, presetLabel, type RangePreset } from "@/lib/report/state/range";
import type { SavedPage } from "@/lib/features/saved-reports/model";
import type { LinkFormLimits, ListedLink, ShareLink } from "@/lib/features/sharing/model";
import { Providers } from "@/components/providers";

/** A link as the list shows it, or as the API answers a new or rotated one (without `paused`). */
type LinkView = ShareLink & Partial<Pick<ListedLink, "paused">>;

/** The link just made or rotated: its whole URL exists only here, until the panel closes. */
interface Fresh {
  linkId: string;
  url: string;
  copied: "yes" | "failed" | null;
}

/** A question about one link, holding that link itself: the answer acts on exactly it. */
interface Pending {
  kind: "revoke" | "rotate";
  link: LinkView;
}

const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

export function ShareLinks({ reportId, page }: { reportId: string; page: SavedPage }) {
  const base = `/api/saved-reports/${reportId}/links`;
  const formId = useId();
  const queryClient = useQueryClient();
  const linksQuery = useQuery({
    queryKey: ["share-links", reportId],
    queryFn: () => apiFetch<{ links: ListedLink[]; limits: LinkFormLimits }>(base),
    staleTime: 0,
  });
  const links = linksQuery.data?.links ?? null;
  const limits = linksQuery.data?.limits ?? null;
  const [timeZone] = useState(browserTimeZone);
  const [now] = useState(() => Date.now());
  const [error, setError] = useState<string | null>(null);
  const [fresh, setFresh] = useState<Fresh | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState(false);
  const [mode, setMode] = useState<"live" | "snapshot">("live");
  const [label, setLabel] = useState("");
  const [amount, setAmount] = useState(30);
  const [unit, setUnit] = useState<"hours" | "days">("days");
  const [password, setPassword] = useState("");
  const [presets, setPresets] = useState<RangePreset[]>([]);
  const urlBox = useRef<HTMLInputElement>(null);
  const presetChoices = page === "cohorts" || page === "dashboard" ? COHORT_PRESETS : EXPLORE_PRESETS;
  const maxAmount = limits ? (unit === "hours" ? limits.maxHours : limits.maxDays) : undefined;
  // Seconds tell apart two links made in the same minute; the zone is said once, in the header.
  const at = (iso: string) => formatInstant(iso, timeZone).slice(0, 19);

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
      const body = {
        mode,
        ...(unit === "hours" ? { expires_in_hours: amount } : { expires_in_days: amount }),
        ...(label.trim() ? { label: label.trim() } : {}),
        ...(password ? { password } : {}),
        ...(mode === "live" && presets.length ? { allowed_presets: presets } : {}),
      };
      const r = await apiFetch<{ url: string; link: LinkView }>(base, { method: "POST", body });
      setFresh({ linkId: r.link.id, url: r.url, copied: null });
      setPassword("");
      setLabel("");
    });

  const confirm = (p: Pending) =>
    act(async () => {
      if (p.kind === "revoke") {
        await apiFetch(`${base}/${p.link.id}`, { method: "DELETE" });
        if (fresh?.linkId === p.link.id) setFresh(null);
      } else {
        const r = await apiFetch<{ url: string; link: LinkView }>(`${base}/${p.link.id}/rotate`, { method: "POST" });
        setFresh({ linkId: r.link.id, url: r.url, copied: null });
      }
      setPending(null);
    });

  const copy = async (f: Fresh) => {
    try {
      await navigator.clipboard.writeText(f.url);
      setFresh({ ...f, copied: "yes" });
    } catch {
      // No clipboard (an insecure origin, or permission refused): select the URL for a manual copy.
      urlBox.current?.select();
      setFresh({ ...f, copied: "failed" });
    }
  };

  const shortName = (l: LinkView) => (l.label ? `${l.label} (${tailText(l)})` : `link ${tailText(l)}`);

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
        <label className="text-sm sm:col-span-2">
          <span className="block font-medium">Label (optional)</span>
          <input
            value={label}
            maxLength={limits?.labelMax}
            onChange={(e) => setLabel(e.target.value)}
            placeholder="e.g. For the bank manager"
            className="mt-1 w-full rounded border border-slate-300 px-2 py-1"
          />
        </label>
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
        <fieldset className="text-sm">
          <legend className="font-medium">Expires after</legend>
          <div className="mt-1 flex items-center gap-2">
            <input
              type="number"
              aria-label="Expires after, amount"
              min={1}
              max={maxAmount}
              step={1}
              required
              value={Number.isFinite(amount) ? amount : ""}
              onChange={(e) => setAmount(e.target.valueAsNumber)}
              className="w-24 rounded border border-slate-300 px-2 py-1"
            />
            <select aria-label="Expires after, unit" value={unit} onChange={(e) => setUnit(e.target.value === "hours" ? "hours" : "days")} className="rounded border border-slate-300 px-2 py-1">
              <option value="hours">hours</option>
              <option value="days">days</option>
            </select>
          </div>
          {maxAmount !== undefined ? <span className="mt-1 block text-xs text-slate-700">1 to {maxAmount} {unit}; the link stops working at that date and time.</span> : null}
        </fieldset>
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
        <div className="space-y-1 text-sm">
          <p>New link (copy it now; only its last characters are shown again):</p>
          <div className="flex flex-wrap items-center gap-2">
            <input
              ref={urlBox}
              readOnly
              value={fresh.url}
              aria-label="New share link URL"
              className="min-w-0 flex-1 rounded border border-slate-300 bg-white px-2 py-1 font-mono text-xs"
              onFocus={(e) => e.currentTarget.select()}
            />
            <Button size="sm" variant="primary" onClick={() => void copy(fresh)}>
              Copy link
            </Button>
          </div>
          <p role="status" className="text-xs text-slate-700">
            {fresh.copied === "yes" ? "Copied to the clipboard." : fresh.copied === "failed" ? "The clipboard could not be reached: the link is selected, press Ctrl+C (⌘C on a Mac)." : ""}
          </p>
        </div>
      ) : null}
      {error || linksQuery.error ? (
        <p role="alert" className="text-sm text-red-800">
          {error ?? (linksQuery.error instanceof Error ? linksQuery.error.message : "Could not load the links")}
        </p>
      ) : null}
      {links && links.length > 0 ? (
        // Relative: the table's screen-reader-only texts are positioned inside the box that scrolls, not the page.
        <div tabIndex={0} role="region" aria-label="Share links (scrolls sideways on a narrow screen)" className="relative overflow-x-auto">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Share links</caption>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Ends with</th>
                <th scope="col">Created ({timeZone})</th>
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
                <tr key={l.id} data-link-id={l.id} className={`border-t border-slate-200 ${fresh?.linkId === l.id ? "bg-amber-50" : ""}`}>
                  <td className="pr-2">
                    {l.label ?? <span className="text-slate-700">(no label)</span>}
                    {fresh?.linkId === l.id ? <span className="ml-1 rounded bg-amber-200 px-1 text-xs">new</span> : null}
                  </td>
                  <td className="pr-2 font-mono text-xs">{tailText(l)}</td>
                  <td className="pr-2 whitespace-nowrap tabular-nums">{at(l.createdAt)}</td>
                  <td className="pr-2">
                    {l.mode}
                    {l.hasPassword ? ", password" : ""}
                  </td>
                  <td className="pr-2 whitespace-nowrap tabular-nums">
                    {l.revokedAt ? "revoked" : l.paused ? "paused: its maker may no longer share" : Date.parse(l.expiresAt) <= now ? `expired ${at(l.expiresAt)}` : at(l.expiresAt)}
                  </td>
                  <td className="pr-2 tabular-nums">{l.viewCount}</td>
                  <td className="pr-2 whitespace-nowrap tabular-nums">{l.lastViewedAt ? at(l.lastViewedAt) : "never"}</td>
                  <td className="space-x-2 py-1 text-right whitespace-nowrap">
                    {l.revokedAt ? null : (
                      <>
                        {l.paused ? null : (
                          <Button size="sm" disabled={busy} aria-label={`Rotate ${shortName(l)}`} onClick={() => setPending({ kind: "rotate", link: l })}>
                            Rotate
                          </Button>
                        )}
                        <Button size="sm" variant="danger" disabled={busy} aria-label={`Revoke ${shortName(l)}`} onClick={() => setPending({ kind: "revoke", link: l })}>
                          Revoke
                        </Button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : links ? (
        <p className="text-sm text-slate-700">No share links yet.</p>
      ) : null}
      <ConfirmDialog
        open={pending !== null}
        title={pending?.kind === "rotate" ? "Rotate this share link?" : "Revoke this share link?"}
        description={
          pending ? (
            <p>
              {pending.kind === "rotate" ? "Give " : "Revoke "}
              <strong>{describeLink(pending.link, timeZone)}</strong>
              {pending.kind === "rotate"
                ? " a new address? The address sent so far stops working at once; send the new one to whoever should keep access."
                : "? Whoever opens it from now on is told it has been revoked. This cannot be undone."}
            </p>
          ) : null
        }
        confirmLabel={pending?.kind === "rotate" ? "Rotate link" : "Revoke link"}
        danger={pending?.kind !== "rotate"}
        busy={busy}
        onConfirm={() => {
          if (pending) void confirm(pending);
        }}
        onCancel={() => setPending(null)}
      />
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
