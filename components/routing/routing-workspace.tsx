"use client";
/**
 * The routing workspace's container: reads GET /api/routing, keeps the configuration being edited
 * (./draft-editor.tsx checks it as it changes), and sends changes, approvals, rejections and
 * restores. The sections draw; this fetches and acts.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import type { RoutingConfig } from "@/lib/contract/routing-config";
import { applyProposal } from "@/lib/features/routing/editor";
import type { Proposal } from "@/lib/features/routing/proposals";
import type { RoutingChange } from "@/lib/features/routing/model";
import type { WorkspaceAnswer } from "@/lib/features/routing/model";
import { normalizeConfig } from "@/lib/features/routing/diff";
import { formatInstant } from "@/lib/report/metrics/format";
import { apiFetch, failureText } from "@/lib/core/api-client/fetch";
import { Providers } from "@/components/providers";
import { Button } from "@/components/ui/button";
import { StatusBanner } from "@/components/ui/status-banner";
import { DraftEditor } from "./draft-editor";
import { EffectsPanel } from "./effects-panel";
import { GroupsTable, RulesTable } from "./live-tables";
import { PendingChanges } from "./pending-changes";
import { PreviewPanel } from "./preview-panel";
import { ProposalsPanel } from "./proposals-panel";
import { useMidName } from "./use-mid-name";
import { VersionsList } from "./versions-list";

const WORKSPACE_KEY = ["routing-workspace"] as const;

/** An API call whose failure becomes the message to show (null on success). */
async function attempt(run: () => Promise<unknown>): Promise<string | null> {
  try {
    await run();
    return null;
  } catch (e) {
    return failureText(e);
  }
}

function Section({ title, children, id, description }: { title: string; children: React.ReactNode; id: string; description?: string }) {
  return (
    <section aria-labelledby={id} className="flex min-w-0 flex-col gap-3">
      <div>
        <h2 id={id} className="text-lg font-semibold">
          {title}
        </h2>
        {description ? <p className="max-w-prose text-sm text-slate-700">{description}</p> : null}
      </div>
      {children}
    </section>
  );
}

/** What a decided change did, in words for the status line. */
function outcomeWords(c: RoutingChange): string {
  if (c.status === "applied") return `Applied: version ${c.applied_version ?? "?"} is live.`;
  if (c.status === "pending") return "Proposed: it waits for another editor to approve it.";
  if (c.status === "superseded") return `Not applied: ${c.decision_reason ?? "the live version changed since it was proposed"}.`;
  if (c.status === "withdrawn") return `Not applied: ${c.decision_reason ?? "it was withdrawn"}.`;
  return "Rejected.";
}

function Workspace({ timeZone }: { timeZone: string }) {
  const ids = useId();
  const client = useQueryClient();
  const query = useQuery({ queryKey: WORKSPACE_KEY, queryFn: ({ signal }) => apiFetch<WorkspaceAnswer>("/api/routing", { signal }), staleTime: 0 });
  const [draft, setDraft] = useState<RoutingConfig | null>(null);
  const mid = useMidName();
  const [reason, setReason] = useState("");
  const [notice, setNotice] = useState<{ tone: "success" | "error" | "neutral"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const editorRef = useRef<HTMLDivElement>(null);

  const view = query.data;
  const refresh = () => client.invalidateQueries({ queryKey: WORKSPACE_KEY });

  if (query.isError) {
    const e = query.error;
    return <StatusBanner tone="error" label="Routing status" title="The routing workspace could not be loaded" detail={failureText(e)} />;
  }
  if (!view) return <StatusBanner tone="progress" label="Routing status" busy title="Loading" detail="Reading the live routing configuration…" />;

  const live = view.live;
  const liveConfig = live ? normalizeConfig(live.config) : null;
  const canEdit = view.can_edit;
  const canWrite = canEdit && view.write_credential;
  // Under the two-person rule a proposal is only recorded; the credential is needed when it is applied.
  const canSubmit = canEdit && (view.two_person || view.write_credential);

  const startEditing = () => {
    if (!liveConfig) return;
    setDraft(structuredClone(liveConfig));
    setNotice(null);
    requestAnimationFrame(() => editorRef.current?.focus());
  };
  const putProposal = (p: Proposal) => {
    const base = draft ?? (liveConfig ? structuredClone(liveConfig) : null);
    if (!base) return;
    const placed = applyProposal(base, p, mid);
    setDraft(placed.config);
    if (reason.trim() === "") setReason(p.summary);
    setNotice({ tone: "neutral", text: `${placed.note} Review it in the editor below, then give a reason and ${view.two_person ? "propose" : "apply"} it.` });
    requestAnimationFrame(() => editorRef.current?.focus());
  };

  const submit = async (why: string) => {
    if (!draft || !live) return;
    setBusy(true);
    try {
      const change = await apiFetch<RoutingChange>("/api/routing/changes", { method: "POST", body: { config: draft, reason: why, base_version: live.version } });
      setNotice({ tone: change.status === "superseded" ? "error" : "success", text: outcomeWords(change) });
      setDraft(null);
      setReason("");
      await refresh();
    } catch (err) {
      setNotice({ tone: "error", text: failureText(err) });
    } finally {
      setBusy(false);
    }
  };

  const approve = (id: string) =>
    attempt(async () => {
      const c = await apiFetch<RoutingChange>(`/api/routing/changes/${encodeURIComponent(id)}/approve`, { method: "POST" });
      setNotice({ tone: c.status === "applied" ? "success" : "error", text: outcomeWords(c) });
      await refresh();
    }).then(async (err) => {
      // A refused approval may have marked the change superseded: show that too.
      if (err) await refresh();
      return err;
    });
  const reject = (id: string, why: string) =>
    attempt(async () => {
      await apiFetch<RoutingChange>(`/api/routing/changes/${encodeURIComponent(id)}/reject`, { method: "POST", body: { reason: why } });
      setNotice({ tone: "neutral", text: "Change rejected." });
      await refresh();
    });
  const restore = (version: number, why: string) =>
    attempt(async () => {
      const c = await apiFetch<RoutingChange>("/api/routing/restore", { method: "POST", body: { version, reason: why } });
      setNotice({ tone: "success", text: c.status === "pending" ? `Restore of version ${version} proposed: it waits for another editor.` : outcomeWords(c) });
      await refresh();
    });

  const pending = view.pending.filter((c) => c.status === "pending");
  const decided = view.recent.filter((c) => c.status !== "pending");

  return (
    <div className="flex flex-col gap-8">
      {view.read_only_reason ? (
        <p className="rounded-md border border-slate-300 bg-slate-50 px-3 py-2 text-sm text-slate-900" data-testid="routing-read-only">
          Read only. {view.read_only_reason}
        </p>
      ) : null}
      {notice ? (
        <StatusBanner tone={notice.tone} label="Routing status" title={notice.tone === "error" ? "Not done" : notice.tone === "success" ? "Done" : "Note"} detail={notice.text} />
      ) : null}

      <Section title="Live configuration" id={`${ids}-live`}>
        {live && liveConfig ? (
          <>
            <p className="text-sm text-slate-800" data-testid="routing-live-version">
              Version {live.version}, <time dateTime={live.created_at}>{formatInstant(live.created_at, timeZone)}</time> by {live.author}: {live.reason}
              {view.two_person ? " · Two-person rule on: a change is applied when a second editor approves it." : ""}
            </p>
            <GroupsTable config={liveConfig} state={live.groups_state} label="Live routing groups" />
            <RulesTable config={liveConfig} label="Live routing rules in precedence order" />
            {canEdit && draft === null ? (
              <div>
                <Button variant="primary" onClick={startEditing}>
                  Edit a copy
                </Button>
              </div>
            ) : null}
          </>
        ) : (
          <p className="text-sm text-slate-800">No routing configuration is loaded in the service.</p>
        )}
      </Section>

      {canEdit && draft && live ? (
        <Section title="Edit" id={`${ids}-edit`} description={`A copy of version ${live.version}. Each edit is checked by the service's own rules; problems show at the field they concern.`}>
          <DraftEditor
            ref={editorRef}
            draft={draft}
            onChange={setDraft}
            liveVersion={live.version}
            twoPerson={view.two_person}
            canSubmit={canSubmit}
            busy={busy}
            reason={reason}
            onReason={setReason}
            onSubmit={submit}
            onDiscard={() => setDraft(null)}
          />
        </Section>
      ) : null}

      <Section title="Pending changes" id={`${ids}-pending`}>
        <PendingChanges
          changes={pending}
          live={liveConfig}
          liveVersion={live?.version ?? null}
          canEdit={canWrite}
          userId={view.user_id}
          twoPerson={view.two_person}
          timeZone={timeZone}
          onApprove={approve}
          onReject={reject}
          refusals={view.approval_refusals}
        />
        {decided.length > 0 ? (
          <details>
            <summary className="cursor-pointer text-sm text-blue-800">Recently decided changes ({decided.length})</summary>
            <div className="mt-2">
              <PendingChanges
                changes={decided}
                live={liveConfig}
                liveVersion={live?.version ?? null}
                canEdit={false}
                userId={view.user_id}
                twoPerson={view.two_person}
                timeZone={timeZone}
                onApprove={approve}
                onReject={reject}
                label="Recently decided changes"
              />
            </div>
          </details>
        ) : null}
      </Section>

      {draft === null ? (
        <Section title="Preview" id={`${ids}-preview`} description="Which group and MID BINs get under the live configuration, without routing anything.">
          <PreviewPanel config={null} />
        </Section>
      ) : null}

      <Section
        title="Proposals from evidence"
        id={`${ids}-proposals`}
        description="BINs and banks whose traffic approved clearly more often on another active MID over the last 90 days."
      >
        <ProposalsPanel timeZone={timeZone} onUse={canEdit && liveConfig ? putProposal : undefined} />
      </Section>

      <Section title="Measured after each change" id={`${ids}-effects`} description="For each applied version, the BINs and banks it re-routed and their rates in equal windows before and after it.">
        <EffectsPanel />
      </Section>

      <Section title="Versions" id={`${ids}-versions`}>
        <VersionsList
          versions={view.versions}
          liveVersion={live?.version ?? null}
          canRestore={canWrite}
          twoPerson={view.two_person}
          timeZone={timeZone}
          onRestore={restore}
        />
      </Section>
    </div>
  );
}

export function RoutingWorkspace(props: { timeZone: string }) {
  return (
    <Providers>
      <Workspace {...props} />
    </Providers>
  );
}
