// The admins' viewer of the demo mail sink, over a real sink that real SMTP clients send to: newest
// first, each message as a mail program reads it, ids that cannot reach outside the folder, and no
// viewer unless mail goes to the sink on this machine.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailSink, type MailSink } from "./sink";
import { listSinkMessages, readSinkMessage, sinkFolder } from "./sink-viewer";

let root: string;
let dir: string;
let sink: MailSink;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "sink-viewer-"));
  dir = join(root, "mail");
  sink = await startMailSink({ dir, port: 0 });
  const transport = nodemailer.createTransport({ host: sink.host, port: sink.port, secure: false, ignoreTLS: true, auth: sink.auth });
  await transport.sendMail({ from: "alerts@demo.local", to: "first@demo.local", subject: "First", text: "one" });
  await transport.sendMail({
    from: "alerts@demo.local",
    to: ["second@demo.local", "partner@outside.example"],
    subject: "Gateways — weekly",
    text: "two",
    html: '<h1>Two</h1><script>parent.document.title="owned"</script><img src="https://tracker.example/p.gif">',
    attachments: [{ filename: "r.csv", content: "a,b\n1,2\n", contentType: "text/csv" }],
  });
  transport.close();
  // A secret beside the folder: what a path in place of an id would try to read.
  writeFileSync(join(root, "secret.json"), "{}");
  writeFileSync(join(dir, "secret.json"), JSON.stringify({ envelope: { from: "x", to: [] }, subject: "secret", date: "", text: "", html: null, attachments: [], bytes: 0 }));
});

afterAll(async () => {
  await sink?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("the demo mail sink's viewer", () => {
  it("lists the kept messages newest first, with to, subject and time", () => {
    const list = listSinkMessages(dir);
    expect(list.map((m) => [m.subject, m.to])).toEqual([
      ["Gateways — weekly", ["second@demo.local", "partner@outside.example"]],
      ["First", ["first@demo.local"]],
    ]);
    expect(Date.parse(list[0]!.date)).toBeGreaterThanOrEqual(Date.parse(list[1]!.date));
    expect(list[0]!.id).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-2$/);
  });

  it("reads one message by id as a mail program does: text, HTML as sent, attachments by name", () => {
    const [newest] = listSinkMessages(dir);
    const m = readSinkMessage(dir, newest!.id)!;
    expect(m).toMatchObject({ subject: "Gateways — weekly", text: "two", envelope: { from: "alerts@demo.local" } });
    // Kept as sent: the page draws it in a sandbox that runs no script and loads nothing (components/notifications/mail-frame.tsx).
    expect(m.html).toContain("<script>");
    expect(m.attachments).toEqual([{ filename: "r.csv", contentType: "text/csv", bytes: 8 }]);
  });

  it("reads nothing but the sink's own messages: a path in place of an id is no message", () => {
    for (const id of ["../secret", "../mail/secret", "..%2fsecret", `${dir}/../secret`, `${dir}/secret`, "/etc/passwd", "secret", "2026-11-27T10-00-00-000Z-1/../../secret", "", "2026-11-27T10-00-00-000Z-1.json"]) {
      expect(readSinkMessage(dir, id), id).toBeNull();
    }
    expect(readSinkMessage(dir, "2026-01-01T00-00-00-000Z-999")).toBeNull();
  });

  it("is there only when mail goes to the sink on this machine", () => {
    expect(sinkFolder({ MAIL_SINK_DIR: dir, SMTP_HOST: "127.0.0.1" })).toBe(dir);
    expect(sinkFolder({ MAIL_SINK_DIR: dir, SMTP_HOST: "localhost" })).toBe(dir);
    expect(sinkFolder({ MAIL_SINK_DIR: dir, SMTP_HOST: "smtp.example.com" })).toBeNull();
    expect(sinkFolder({ MAIL_SINK_DIR: dir, SMTP_HOST: undefined })).toBeNull();
    expect(sinkFolder({ MAIL_SINK_DIR: undefined, SMTP_HOST: "127.0.0.1" })).toBeNull();
  });
});
