// The demo's SMTP sink: a real SMTP server that keeps what it is sent as .eml files.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { simpleParser } from "mailparser";
import nodemailer from "nodemailer";
import { afterEach, describe, expect, it } from "vitest";
import { startMailSink, type MailSink } from "./sink";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mail-sink-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function sink(options: Parameters<typeof startMailSink>[0]): Promise<MailSink> {
  const s = await startMailSink(options);
  cleanup.push(() => s.close());
  return s;
}

describe("startMailSink", () => {
  it("keeps each message as <timestamp>-<n>.eml, readable only by its owner", async () => {
    const dir = join(tempDir(), "mail");
    const seen: string[][] = [];
    const s = await sink({ dir, port: 0, onMessage: (m) => seen.push(m.to) });
    expect(s.host).toBe("127.0.0.1");
    const transport = nodemailer.createTransport({ host: s.host, port: s.port, secure: false, ignoreTLS: true, auth: s.auth });
    await transport.sendMail({ from: "alerts@demo.local", to: "analyst@demo.local", subject: "Gateways — daily", text: "hello", attachments: [{ filename: "r.csv", content: "a,b\n1,2\n", contentType: "text/csv" }] });
    await transport.sendMail({ from: "alerts@demo.local", to: "admin@demo.local", subject: "second", text: "again" });
    transport.close();

    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-1\.eml$/);
    expect(files[1]).toMatch(/-2\.eml$/);
    expect(statSync(join(dir, files[0]!)).mode & 0o077).toBe(0);
    const first = await simpleParser(readFileSync(join(dir, files[0]!)));
    expect(first.subject).toBe("Gateways — daily");
    expect(first.attachments[0]!.content.toString()).toBe("a,b\n1,2\n");
    expect(seen).toEqual([["analyst@demo.local"], ["admin@demo.local"]]);
  });

  it("takes mail only from the client that signs in with its generated password: another local process cannot add any", async () => {
    const dir = tempDir();
    const s = await sink({ dir, port: 0 });
    expect(s.auth.pass.length).toBeGreaterThanOrEqual(32);
    const message = { from: "alerts@demo.local", to: "admin@demo.local", subject: "Injected", text: "click here" };
    const anonymous = nodemailer.createTransport({ host: s.host, port: s.port, secure: false, ignoreTLS: true });
    await expect(anonymous.sendMail(message)).rejects.toThrow(/auth/i);
    anonymous.close();
    const guessing = nodemailer.createTransport({ host: s.host, port: s.port, secure: false, ignoreTLS: true, auth: { user: s.auth.user, pass: "not-the-password" } });
    await expect(guessing.sendMail(message)).rejects.toThrow(/535|Invalid/);
    guessing.close();
    // Another sink's credentials do not open this one.
    const other = await sink({ dir: tempDir(), port: 0 });
    const crossed = nodemailer.createTransport({ host: s.host, port: s.port, secure: false, ignoreTLS: true, auth: other.auth });
    await expect(crossed.sendMail(message)).rejects.toThrow(/535|Invalid/);
    crossed.close();
    expect(readdirSync(dir).filter((f) => f.endsWith(".eml"))).toEqual([]);
    const dashboard = nodemailer.createTransport({ host: s.host, port: s.port, secure: false, ignoreTLS: true, auth: s.auth });
    await dashboard.sendMail(message);
    dashboard.close();
    expect(readdirSync(dir).filter((f) => f.endsWith(".eml"))).toHaveLength(1);
  });

  it("takes a free port when the one it prefers is in use", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    cleanup.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const taken = (blocker.address() as { port: number }).port;
    const s = await sink({ dir: tempDir(), port: taken });
    expect(s.port).not.toBe(taken);
    expect(s.port).toBeGreaterThan(0);
  });

  it("outlives a client that drops its connection", async () => {
    const errors: Error[] = [];
    const s = await sink({ dir: tempDir(), port: 0, onError: (e) => errors.push(e) });
    const { connect } = await import("node:net");
    // Signed in, then dropped in the middle of a message (after MAIL FROM), which smtp-server reports as an error.
    await new Promise<void>((resolve) => {
      const socket = connect(s.port, s.host);
      const plain = Buffer.from(`\0${s.auth.user}\0${s.auth.pass}`).toString("base64");
      const script = ["EHLO client.test\r\n", `AUTH PLAIN ${plain}\r\n`, "MAIL FROM:<a@demo.local>\r\n"];
      let heard = "";
      socket.on("data", (chunk: Buffer) => {
        heard += chunk.toString();
        if (!/\r\n$/.test(heard) || /^\d{3}-/m.test(heard.split("\r\n").at(-2) ?? "")) return;
        heard = "";
        const next = script.shift();
        if (next) socket.write(next);
        else socket.resetAndDestroy();
      });
      socket.on("close", () => resolve());
      socket.on("error", () => {});
    });
    for (let i = 0; i < 50 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(["ECONNRESET"]);
    const transport = nodemailer.createTransport({ host: s.host, port: s.port, secure: false, ignoreTLS: true, auth: s.auth });
    await expect(transport.sendMail({ from: "a@demo.local", to: "b@demo.local", subject: "still here", text: "x" })).resolves.toBeTruthy();
    transport.close();
  });
});
