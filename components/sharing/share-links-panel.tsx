"use client";
/**
 * Share links of one saved report: create (label, expiry in hours or days, optional password, live
 * or snapshot, presets the viewer may switch to), list with views, revoke and rotate after asking.
 * The whole URL is shown once, when made, with a button to copy it; the list names each link by its
 * label, the token's last characters and when it was made.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { apiFetch } from "@/lib/core/api-client/fetch";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Providers } from "@/components/providers";
import { describeLink } from "@/lib/features/sharing/link-view";
import type { SavedPage } from "@/lib/features/saved-reports/model";
import type { ShareLinkRequest } from "@/lib/features/sharing/link-input";
import type { LinkFormLimits, ListedLink } from "@/lib/features/sharing/model";
import { ShareLinkForm } from "./share-link-form";
import { ShareLinkTable, type LinkQuestion, type LinkView } from "./share-link-table";

/** The link just made or rotated: its whole URL exists only here, until the panel closes. */
interface Fresh {
  linkId: string;
  url: string;
  copied: "yes" | "failed" | null;
}

const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

export function ShareLinks({ reportId, page }: { reportId: string; page: SavedPage }) {
  const base = `/api/saved-reports/${reportId}/links`;
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
  const [pending, setPending] = useState<LinkQuestion | null>(null);
  const [busy, setBusy] = useState(false);
  const urlBox = useRef<HTMLInputElement>(null);

  const load = () => queryClient.invalidateQueries({ queryKey: ["share-links", reportId] });

  /** Runs one change of the links and reloads the list; false, with the error shown, if it failed. */
  const act = async (fn: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      await load();
      return true;
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return false;
    } finally {
      setBusy(false);
    }
  };

  const create = (body: ShareLinkRequest) =>
    act(async () => {
      const r = await apiFetch<{ url: string; link: LinkView }>(base, { method: "POST", body });
      setFresh({ linkId: r.link.id, url: r.url, copied: null });
    });

  const confirm = (p: LinkQuestion) =>
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

  return (
    <div className="mt-3 space-y-3 rounded border border-slate-200 bg-slate-50 p-3">
      <ShareLinkForm page={page} limits={limits} busy={busy} onCreate={create} />
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
        <ShareLinkTable links={links} freshId={fresh?.linkId ?? null} now={now} timeZone={timeZone} busy={busy} onAsk={setPending} />
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
