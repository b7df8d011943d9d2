/**
 * Test support: a real SMTP server (smtp-server) on 127.0.0.1 and a free port, no TLS and no sign-in,
 * keeping every message it accepts, parsed with mailparser as a mail program would read it.
 */
import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: Buffer;
  parsed: ParsedMail;
}

export interface TestSmtp {
  host: "127.0.0.1";
  port: number;
  received: ReceivedMail[];
  /** Every message accepted so far, once each is parsed. */
  settled(): Promise<ReceivedMail[]>;
  /** Resolves once `count` messages in all have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startTestSmtp(): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const pending: Promise<void>[] = [];
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks);
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        const to = session.envelope.rcptTo.map((r) => r.address);
        pending.push(
          simpleParser(raw).then((parsed) => {
            received.push({ from, to, raw, parsed });
          }),
        );
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    host: "127.0.0.1",
    port,
    received,
    async settled() {
      await Promise.all(pending);
      return received;
    },
    async waitFor(count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        await Promise.all(pending);
        if (received.length >= count) return received;
        if (Date.now() > until) throw new Error(`the SMTP server received ${received.length} messages, not ${count}, within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
