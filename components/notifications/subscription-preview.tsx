"use client";
/**
 * The next issue of a scheduled report as "Send now" would send it: each audience's e-mail (subject,
 * the HTML drawn in a sandboxed frame, the text, the attachments), built by the server with the code
 * that sends, sending nothing. While its report waits for the shared quota it says where, as every
 * waiting screen does, and asks again.
 */
import { useEffect, useState } from "react";
import { send, errorFrom } from "@/lib/core/api-client/fetch";
import { queueWords, type QueuePlace } from "@/lib/report/client/queue-words";
import { MailFrame } from "./mail-frame";

interface PreviewMail {
  audience: "users" | "outside";
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; contentType: string; bytes: number }[];
}

type Preview =
  | { kind: "ready"; mails: PreviewMail[]; inboxUsers: number; refused: string | null; mailOn: boolean }
  | { kind: "pending"; reason: string; queue: QueuePlace | null; retryAfterSeconds: number };

type State = { kind: "loading" } | { kind: "waiting"; preview: Extract<Preview, { kind: "pending" }>; at: number } | { kind: "ready"; preview: Extract<Preview, { kind: "ready" }> } | { kind: "failed"; message: string };

const AUDIENCE: Record<PreviewMail["audience"], string> = {
  users: "To dashboard users (links into the dashboard)",
  outside: "To outside addresses",
};

export function SubscriptionPreview({ id, name }: { id: string; name: string }) {
  const [state, setState] = useState<State>({ kind: "loading" });
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = async () => {
      try {
        const res = await send(`/api/notifications/subscriptions/${id}/preview`, { headers: { Accept: "application/json" } });
        if (!res.ok) throw await errorFrom(res);
        const { preview } = (await res.json()) as { preview: Preview };
        if (stopped) return;
        if (preview.kind === "ready") setState({ kind: "ready", preview });
        else {
          setState({ kind: "waiting", preview, at: Date.now() });
          timer = setTimeout(() => void ask(), Math.max(1, preview.retryAfterSeconds) * 1000);
        }
      } catch (e) {
        if (!stopped) setState({ kind: "failed", message: e instanceof Error ? e.message : "the preview failed" });
      }
    };
    void ask();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [id]);

  return (
    <section aria-label={`Preview of ${name}`} className="mt-3 rounded-md border border-slate-300 bg-slate-50 p-3 text-sm text-slate-900">
      <h4 className="font-semibold">Preview of the next e-mail</h4>
      {state.kind === "loading" ? <p role="status">Building the preview…</p> : null}
      {state.kind === "waiting" ? (
        <p role="status">
          {state.preview.reason} {state.preview.queue ? `${queueWords(state.preview.queue, state.at)}.` : "Asking again shortly."}
        </p>
      ) : null}
      {state.kind === "failed" ? (
        <p role="alert" className="text-red-800">
          The preview could not be built: {state.message}
        </p>
      ) : null}
      {state.kind === "ready" ? (
        <div className="mt-2 flex flex-col gap-4">
          <p>
            Nothing was sent. {state.preview.inboxUsers > 0 ? `${state.preview.inboxUsers} user${state.preview.inboxUsers === 1 ? " is" : "s are"} also told in the inbox. ` : ""}
            {state.preview.mailOn ? "" : "E-mail is off: only the inbox would be told. "}
            {state.preview.refused ? `Left out: ${state.preview.refused}.` : ""}
          </p>
          {state.preview.mails.length === 0 ? <p>No e-mail would be sent: no recipient may receive it now.</p> : null}
          {state.preview.mails.map((m) => (
            <article key={m.audience} aria-label={AUDIENCE[m.audience]} className="rounded border border-slate-300 bg-white p-3">
              <h5 className="font-semibold">{AUDIENCE[m.audience]}</h5>
              <dl className="mt-1 grid gap-x-3 sm:grid-cols-[max-content_1fr]">
                <dt className="font-medium">To</dt>
                <dd className="break-words">{m.to.join(", ")}</dd>
                <dt className="font-medium">Subject</dt>
                <dd>{m.subject}</dd>
                <dt className="font-medium">Attachments</dt>
                <dd>{m.attachments.length === 0 ? "none" : m.attachments.map((a) => `${a.filename} (${a.bytes.toLocaleString("en-US")} bytes)`).join(", ")}</dd>
              </dl>
              {m.audience === "outside" && m.text.includes("/share/") ? <p className="mt-1 text-xs text-slate-700">The share link is shown by its last characters; the e-mail carries the whole link.</p> : null}
              <div className="mt-2">
                <MailFrame html={m.html} title={`${AUDIENCE[m.audience]}: the e-mail as HTML`} />
              </div>
              <details className="mt-2">
                <summary className="cursor-pointer text-blue-800 underline">The e-mail as text</summary>
                <pre className="mt-1 whitespace-pre-wrap break-words rounded bg-slate-100 p-2 text-xs">{m.text}</pre>
              </details>
            </article>
          ))}
        </div>
      ) : null}
    </section>
  );
}
