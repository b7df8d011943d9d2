import "server-only";
/**
 * The mail server the dashboard sends alert and scheduled-report e-mail through, from the
 * validated environment (lib/core/env/env-schema.ts: SMTP_HOST, SMTP_PORT, SMTP_TLS, SMTP_USER, SMTP_PASSWORD,
 * MAIL_FROM). Without SMTP_HOST mail is off: nothing is queued (lib/core/mail/outbox.ts) and alerts reach
 * only the in-app inbox.
 *
 * `MailConfig` never holds the password, so it can be logged, described on the settings page or
 * handed to any code; the password goes straight from the environment to `createTransport`.
 */
import nodemailer, { type Transporter } from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport";
import type { ServerEnv } from "@/lib/core/env/env-schema";

export type MailTls = "starttls" | "tls" | "none";

export type MailOn = {
  enabled: true;
  host: string;
  port: number;
  tls: MailTls;
  /** Signs in as this user (with SMTP_PASSWORD, which is not kept here). */
  user?: string;
  /** The sender: `alerts@example.com` or `Name <alerts@example.com>`. */
  from: string;
};

export type MailConfig = { enabled: false } | MailOn;

/** The variables `mailConfigFrom` reads: a parsed `ServerEnv` will do, as will a test's literal. */
export type MailEnv = Pick<ServerEnv, "SMTP_HOST" | "SMTP_PORT" | "SMTP_TLS" | "SMTP_USER" | "MAIL_FROM">;

export type MailTransport = Transporter<SMTPTransport.SentMessageInfo>;

/** Mail settings without the password. Off unless SMTP_HOST and MAIL_FROM are both set. */
export function mailConfigFrom(env: MailEnv): MailConfig {
  if (!env.SMTP_HOST || !env.MAIL_FROM) return { enabled: false };
  return {
    enabled: true,
    host: env.SMTP_HOST,
    port: env.SMTP_PORT,
    tls: env.SMTP_TLS,
    ...(env.SMTP_USER ? { user: env.SMTP_USER } : {}),
    from: env.MAIL_FROM,
  };
}

const TLS_NAMES: Record<MailTls, string> = { starttls: "STARTTLS", tls: "TLS", none: "no encryption" };

/** One sentence for the settings page; never the password. */
export function describeMail(config: MailConfig): string {
  if (!config.enabled) return "E-mail is off: set SMTP_HOST and MAIL_FROM";
  const signIn = config.user ? `, signing in as ${config.user}` : "";
  return `E-mail is on: ${config.host}:${config.port} (${TLS_NAMES[config.tls]}), from ${config.from}${signIn}`;
}

/** Timeouts well inside the outbox's lease, so that a hung server never lets a second worker send the same row. */
export const SMTP_TIMEOUTS_MS = { connection: 30_000, greeting: 30_000, socket: 60_000 } as const;

/**
 * A nodemailer SMTP transport for `config`: one connection per message (the outbox sends a few at a
 * time), STARTTLS required under "starttls", TLS from the first byte under "tls", never under "none".
 * nodemailer's own logging stays off: at debug level it would print the AUTH exchange.
 */
export function createTransport(config: MailOn, password?: string): MailTransport {
  const options: SMTPTransport.Options = {
    host: config.host,
    port: config.port,
    secure: config.tls === "tls",
    requireTLS: config.tls === "starttls",
    ignoreTLS: config.tls === "none",
    connectionTimeout: SMTP_TIMEOUTS_MS.connection,
    greetingTimeout: SMTP_TIMEOUTS_MS.greeting,
    socketTimeout: SMTP_TIMEOUTS_MS.socket,
    logger: false,
    debug: false,
    ...(config.user !== undefined && password !== undefined ? { auth: { user: config.user, pass: password } } : {}),
  };
  return nodemailer.createTransport(options);
}
