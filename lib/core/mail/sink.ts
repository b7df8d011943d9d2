/**
 * A local SMTP sink for demo mode (`npm start`): a real SMTP server on 127.0.0.1, with no sign-in
 * and no TLS, that accepts every message and keeps it as `<dir>/<timestamp>-<n>.eml` (open it in any
 * mail program). The dashboard sends to it exactly as it would to a real mail server, so the outbox,
 * its retries and the message format are the real ones; only delivery is missing.
 *
 * For each message it writes `<dir>-view/<timestamp>-<n>.json`, the message as a mail program reads it
 * (envelope, subject, date, text, HTML, the attachments' names): the admins' viewer in the dashboard
 * (lib/core/mail/sink-viewer.ts, /mail) reads those, so the dashboard itself needs no MIME parser.
 *
 * Not `server-only`: scripts/start.ts runs it outside Next. It listens on loopback only, and takes
 * mail only from a client that signs in with the user name and password it generated when it started
 * (`auth`), which the launcher hands to the dashboard alone (SMTP_USER, SMTP_PASSWORD): another local
 * process cannot put a message in front of the admins at /mail.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { basename, join } from "node:path";
import { SMTPServer } from "smtp-server";
import { viewFolder, type SinkSidecar } from "./sink-format";

export const DEFAULT_SINK_DIR = ".local/mail";
export const DEFAULT_SINK_PORT = 2525;
/** Larger messages are refused (552), as a real server would. */
const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

export interface SinkOptions {
  /** Where messages are written; created when missing. */
  dir?: string;
  /** Tried first; when it is taken, any free port. 0: any free port. */
  port?: number;
  /** Called after each message is written (e.g. to print a line). */
  onMessage?: (message: { file: string; from: string; to: string[]; bytes: number }) => void;
  /** A client's connection failed (reset, timed out); the sink goes on. Ignored by default. */
  onError?: (error: Error) => void;
}

export interface MailSink {
  host: "127.0.0.1";
  port: number;
  dir: string;
  /** The only sign-in the sink accepts: generated at start, known to whoever started it. */
  auth: { user: string; pass: string };
  close(): Promise<void>;
}

function sameSecret(given: string | null | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? "", "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

// smtp-server re-emits its listening socket's errors on itself, so a listen error arrives there.
function listen(server: SMTPServer, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    server.once("error", onError);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError);
      resolve((server.server.address() as AddressInfo).port);
    });
  });
}

function fileStamp(d: Date): string {
  // 2026-11-24T01-22-01-282Z: sorts by time, and is a valid file name everywhere.
  return d.toISOString().replace(/[:.]/g, "-");
}

/**
 * The message as the viewer shows it, written whole then renamed like the message. A message the
 * parser cannot read still gets one, saying so: the .eml is kept either way.
 */
async function writeSidecar(dir: string, file: string, body: Buffer, envelope: { from: string; to: string[] }): Promise<void> {
  let sidecar: SinkSidecar;
  try {
    // Loaded when the first message arrives: the launcher's import of the sink stays light.
    const { simpleParser } = await import("mailparser");
    const m = await simpleParser(body);
    sidecar = {
      envelope,
      subject: m.subject ?? "",
      date: (m.date ?? new Date()).toISOString(),
      text: m.text ?? "",
      html: typeof m.html === "string" ? m.html : null,
      attachments: m.attachments.map((a) => ({ filename: a.filename ?? "", contentType: a.contentType, bytes: a.size })),
      bytes: body.length,
    };
  } catch (e) {
    sidecar = { envelope, subject: "", date: new Date().toISOString(), text: `This message could not be read (${e instanceof Error ? e.message : String(e)}); open ${file} in a mail program.`, html: null, attachments: [], bytes: body.length };
  }
  const json = join(viewFolder(dir), basename(file).replace(/\.eml$/, ".json"));
  try {
    writeFileSync(`${json}.part`, JSON.stringify(sidecar), { mode: 0o600 });
    renameSync(`${json}.part`, json);
  } catch {
    // The message itself is kept; only the viewer's copy is missing.
  }
}

export async function startMailSink(options: SinkOptions = {}): Promise<MailSink> {
  const dir = options.dir ?? DEFAULT_SINK_DIR;
  mkdirSync(dir, { recursive: true });
  mkdirSync(viewFolder(dir), { recursive: true, mode: 0o700 });
  let n = 0;
  const auth = { user: `sink-${randomBytes(6).toString("hex")}`, pass: randomBytes(24).toString("base64url") };
  const make = () =>
    new SMTPServer({
      secure: false,
      // Every message needs the sign-in; in clear text, as the sink listens on loopback only.
      authOptional: false,
      allowInsecureAuth: true,
      authMethods: ["PLAIN", "LOGIN"],
      disabledCommands: ["STARTTLS"],
      onAuth(a, _session, callback) {
        if (sameSecret(a.username, auth.user) && sameSecret(a.password, auth.pass)) callback(null, { user: a.username });
        else callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
      },
      banner: "payments-analytics demo mail sink (messages are kept, not delivered)",
      size: MAX_MESSAGE_BYTES,
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("error", (e) => callback(e));
        stream.on("end", () => {
          if (stream.sizeExceeded) {
            callback(Object.assign(new Error("message too large"), { responseCode: 552 }));
            return;
          }
          try {
            n += 1;
            const file = join(dir, `${fileStamp(new Date())}-${n}.eml`);
            const body = Buffer.concat(chunks);
            // Written whole, then renamed: whoever watches the folder never reads half a message.
            // Messages can hold share links, so only this user may read them.
            writeFileSync(`${file}.part`, body, { mode: 0o600 });
            renameSync(`${file}.part`, file);
            const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
            const to = session.envelope.rcptTo.map((r) => r.address);
            void writeSidecar(dir, file, body, { from, to }).then(() => {
              options.onMessage?.({ file, from, to, bytes: body.length });
              callback();
            });
          } catch (e) {
            callback(e instanceof Error ? e : new Error(String(e)));
          }
        });
      },
    });

  let server = make();
  let port: number;
  const preferred = options.port ?? DEFAULT_SINK_PORT;
  try {
    port = await listen(server, preferred);
  } catch (e) {
    if (preferred === 0 || (e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
    server = make();
    port = await listen(server, 0);
  }
  const running = server;
  // smtp-server emits a client connection's errors on the server: without a listener they would
  // end the whole process (`npm start`).
  running.on("error", (e: Error) => options.onError?.(e));
  return {
    host: "127.0.0.1",
    port,
    dir,
    auth,
    close: () => new Promise<void>((resolve) => running.close(() => resolve())),
  };
}
