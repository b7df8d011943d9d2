import "server-only";
/**
 * The admins' view of the demo mail sink (lib/core/mail/sink.ts): the messages it kept, newest first, and
 * one message by id. In use only when the dashboard's mail goes to the sink, that is when `npm start`
 * ran it (MAIL_SINK_DIR set) and SMTP_HOST is this machine; with a real mail server there is no
 * viewer. A message is named by its id, never a path: an id is checked against the sink's own naming
 * before it meets the file system, so nothing outside the folder can be read through it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { ServerEnv } from "@/lib/core/env/env-schema";
import { SINK_MESSAGE_ID, SinkSidecar, viewFolder } from "./sink-format";

/** Loopback names: the sink listens on 127.0.0.1 only, so mail for it never goes anywhere else. */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** The sink's folder when the dashboard's mail goes to the demo sink, else null. */
export function sinkFolder(env: Pick<ServerEnv, "MAIL_SINK_DIR" | "SMTP_HOST">): string | null {
  if (!env.MAIL_SINK_DIR || !env.SMTP_HOST || !LOOPBACK.has(env.SMTP_HOST.toLowerCase())) return null;
  return resolve(env.MAIL_SINK_DIR);
}

export interface SinkSummary {
  id: string;
  to: string[];
  subject: string;
  date: string;
}

export type SinkMessage = SinkSidecar & { id: string };

/** The newest messages first (the id starts with the time the sink took it), at most `limit`. */
export function listSinkMessages(dir: string, limit = 200): SinkSummary[] {
  let names: string[];
  try {
    names = readdirSync(viewFolder(dir));
  } catch {
    return [];
  }
  const ids = names
    .filter((n) => n.endsWith(".json"))
    .map((n) => n.slice(0, -".json".length))
    .filter((id) => SINK_MESSAGE_ID.test(id))
    .sort(newestFirst)
    .slice(0, limit);
  return ids.flatMap((id) => {
    const m = readSinkMessage(dir, id);
    return m ? [{ id, to: m.envelope.to, subject: m.subject, date: m.date }] : [];
  });
}

/** Later time first; within one millisecond the sink's later count first. */
function newestFirst(a: string, b: string): number {
  const cut = (id: string) => [id.slice(0, id.lastIndexOf("-")), Number(id.slice(id.lastIndexOf("-") + 1))] as const;
  const [ta, na] = cut(a);
  const [tb, nb] = cut(b);
  return ta === tb ? nb - na : ta < tb ? 1 : -1;
}

/** One message by id; null for an id the sink would not have made, or a message not there (or unreadable). */
export function readSinkMessage(dir: string, id: string): SinkMessage | null {
  if (!SINK_MESSAGE_ID.test(id)) return null;
  const folder = resolve(viewFolder(dir));
  const file = join(folder, `${id}.json`);
  // The id's shape already rules out separators and dots; the file is checked to be in the folder all the same.
  if (resolve(file) !== join(folder, basename(file))) return null;
  try {
    const parsed = SinkSidecar.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? { id, ...parsed.data } : null;
  } catch {
    return null;
  }
}
