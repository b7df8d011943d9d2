"use client";
/**
 * The list of one saved report's share links: each named by its label and the token's last
 * characters, when it was made and expires (or that it was revoked, or paused because its maker may
 * no longer share), its views; Rotate and Revoke ask the panel to confirm.
 */
import { Button } from "@/components/ui/button";
import { formatInstant } from "@/lib/report/metrics/format";
import { tailText } from "@/lib/features/sharing/link-view";
import type { ListedLink, ShareLink } from "@/lib/features/sharing/model";

/** A link as the list shows it, or as the API answers a new or rotated one (without `paused`). */
export type LinkView = ShareLink & Partial<Pick<ListedLink, "paused">>;

/** A question about one link, holding that link itself: the answer acts on exactly it. */
export interface LinkQuestion {
  kind: "revoke" | "rotate";
  link: LinkView;
}

const shortName = (l: LinkView) => (l.label ? `${l.label} (${tailText(l)})` : `link ${tailText(l)}`);

export function ShareLinkTable({
  links,
  freshId,
  now,
  timeZone,
  busy,
  onAsk,
}: {
  links: readonly ListedLink[];
  /** The link just made or rotated, marked "new". */
  freshId: string | null;
  now: number;
  timeZone: string;
  busy: boolean;
  onAsk: (question: LinkQuestion) => void;
}) {
  // Seconds tell apart two links made in the same minute; the zone is said once, in the header.
  const at = (iso: string) => formatInstant(iso, timeZone).slice(0, 19);
  return (
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
            <tr key={l.id} data-link-id={l.id} className={`border-t border-slate-200 ${freshId === l.id ? "bg-amber-50" : ""}`}>
              <td className="pr-2">
                {l.label ?? <span className="text-slate-700">(no label)</span>}
                {freshId === l.id ? <span className="ml-1 rounded bg-amber-200 px-1 text-xs">new</span> : null}
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
                      <Button size="sm" disabled={busy} aria-label={`Rotate ${shortName(l)}`} onClick={() => onAsk({ kind: "rotate", link: l })}>
                        Rotate
                      </Button>
                    )}
                    <Button size="sm" variant="danger" disabled={busy} aria-label={`Revoke ${shortName(l)}`} onClick={() => onAsk({ kind: "revoke", link: l })}>
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
  );
}
