import type { Metadata } from "next";
import Link from "next/link";
import { requirePageUser } from "@/lib/core/auth/session";
import { serverEnv } from "@/lib/core/env/env";
import { listSinkMessages, readSinkMessage, sinkFolder } from "@/lib/core/mail/sink-viewer";
import { formatInstant } from "@/lib/report/metrics/format";
import { MailFrame } from "@/components/notifications/mail-frame";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Demo mail" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The messages the demo mail sink kept (admins): newest first, and the one picked, drawn without running anything. */
export default async function MailPage({ searchParams }: { searchParams: SearchParams }) {
  await requirePageUser("/mail", "admin");
  const env = serverEnv();
  const dir = sinkFolder(env);
  const picked = (await searchParams).id;
  const id = typeof picked === "string" ? picked : null;
  const tz = env.REPORT_TIMEZONE;
  if (!dir) {
    return (
      <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
        <h1 className="text-2xl font-semibold">Demo mail</h1>
        <p className="mt-2 max-w-prose text-sm text-slate-700">
          Mail is not going to the demo mail sink (it goes through a mail server, or e-mail is off), so there are no kept messages to read here.
        </p>
      </main>
    );
  }
  const messages = listSinkMessages(dir);
  const message = id ? readSinkMessage(dir, id) : null;
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <h1 className="text-2xl font-semibold">Demo mail</h1>
      <p className="mt-1 max-w-prose text-sm text-slate-700">
        The dashboard&apos;s e-mail goes to a local mail sink that keeps every message instead of delivering it. The newest {messages.length === 200 ? "200 are" : "are"} listed
        first; times in {tz}. A message&apos;s HTML is drawn in a sandbox that runs no script and loads nothing.
      </p>
      {id && !message ? (
        <p role="alert" className="mt-3 text-sm text-red-800">
          No such message: pick one from the list.
        </p>
      ) : null}
      {message ? (
        <article aria-label="Message" className="mt-4 rounded-md border border-slate-300 bg-white p-4 text-sm text-slate-900">
          <h2 className="text-lg font-semibold">{message.subject || "(no subject)"}</h2>
          <dl className="mt-2 grid gap-x-3 sm:grid-cols-[max-content_1fr]">
            <dt className="font-medium">From</dt>
            <dd>{message.envelope.from}</dd>
            <dt className="font-medium">To</dt>
            <dd className="break-words">{message.envelope.to.join(", ")}</dd>
            <dt className="font-medium">Time</dt>
            <dd>{formatInstant(message.date, tz)}</dd>
            <dt className="font-medium">Attachments</dt>
            <dd>{message.attachments.length === 0 ? "none" : message.attachments.map((a) => `${a.filename || "(unnamed)"} (${a.bytes.toLocaleString("en-US")} bytes)`).join(", ")}</dd>
          </dl>
          {message.html !== null ? (
            <div className="mt-3">
              <MailFrame html={message.html} title="The message as HTML" />
            </div>
          ) : null}
          <details className="mt-3" open={message.html === null}>
            <summary className="cursor-pointer text-blue-800 underline">The message as text</summary>
            <pre className="mt-1 whitespace-pre-wrap break-words rounded bg-slate-100 p-2 text-xs">{message.text}</pre>
          </details>
        </article>
      ) : null}
      {messages.length === 0 ? (
        <p className="mt-4 text-sm text-slate-700">No messages yet. Send a scheduled report now from the Alerts page, and it appears here.</p>
      ) : (
        <table className="mt-4 w-full border-collapse text-left text-sm">
          <caption className="sr-only">Messages the demo mail sink kept, newest first</caption>
          <thead>
            <tr className="border-b border-slate-300">
              <th scope="col" className="py-2 pr-3 font-semibold">Time</th>
              <th scope="col" className="py-2 pr-3 font-semibold">To</th>
              <th scope="col" className="py-2 font-semibold">Subject</th>
            </tr>
          </thead>
          <tbody>
            {messages.map((m) => (
              <tr key={m.id} className={`border-b border-slate-200 ${m.id === id ? "bg-blue-50" : ""}`}>
                <td className="whitespace-nowrap py-2 pr-3">{formatInstant(m.date, tz)}</td>
                <td className="break-words py-2 pr-3">{m.to.join(", ")}</td>
                <td className="py-2">
                  <Link className="text-blue-800 underline" href={`/mail?id=${encodeURIComponent(m.id)}`} aria-current={m.id === id ? "true" : undefined}>
                    {m.subject || "(no subject)"}
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
