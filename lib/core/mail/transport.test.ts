import { describe, expect, it } from "vitest";
import { parseServerEnv } from "@/lib/core/env/env-schema";
import { classifySendError, DEFAULT_BACKOFF, retryDelayMs } from "./worker";
import { describeMail, mailConfigFrom } from "./transport";

const base = {
  NEXTAUTH_SECRET: "x".repeat(32),
  UPSTREAM_BASE_URL: "http://127.0.0.1:4000",
  UPSTREAM_CLIENT_ID: "client",
  UPSTREAM_CLIENT_SECRET: "secret-value",
  UPSTREAM_TOKEN_URL: "http://127.0.0.1:4000/api/auth/token",
};

describe("mailConfigFrom and describeMail", () => {
  it("is off without SMTP_HOST", () => {
    const config = mailConfigFrom(parseServerEnv(base));
    expect(config).toEqual({ enabled: false });
    expect(describeMail(config)).toBe("E-mail is off: set SMTP_HOST and MAIL_FROM");
  });

  it("carries the settings but never the password", () => {
    const env = parseServerEnv({
      ...base,
      SMTP_HOST: "smtp.example.com",
      SMTP_USER: "mailer",
      SMTP_PASSWORD: "very-secret-password",
      MAIL_FROM: "alerts@example.com",
    });
    const config = mailConfigFrom(env);
    expect(config).toEqual({ enabled: true, host: "smtp.example.com", port: 587, tls: "starttls", user: "mailer", from: "alerts@example.com" });
    expect(JSON.stringify(config)).not.toContain("very-secret-password");
    expect(describeMail(config)).toBe("E-mail is on: smtp.example.com:587 (STARTTLS), from alerts@example.com, signing in as mailer");
    expect(describeMail(config)).not.toContain("very-secret-password");
  });

  it("names the TLS mode", () => {
    const on = { SMTP_HOST: "127.0.0.1", MAIL_FROM: "Alerts <alerts@demo.local>" };
    expect(describeMail(mailConfigFrom(parseServerEnv({ ...base, ...on, SMTP_PORT: "465", SMTP_TLS: "tls" })))).toBe(
      "E-mail is on: 127.0.0.1:465 (TLS), from Alerts <alerts@demo.local>",
    );
    expect(describeMail(mailConfigFrom(parseServerEnv({ ...base, ...on, SMTP_PORT: "2525", SMTP_TLS: "none" })))).toBe(
      "E-mail is on: 127.0.0.1:2525 (no encryption), from Alerts <alerts@demo.local>",
    );
  });
});

describe("retries", () => {
  it("waits 1, 2, 4 … minutes, at most an hour, over 8 attempts", () => {
    expect(DEFAULT_BACKOFF).toEqual({ baseMs: 60_000, maxMs: 3_600_000, maxAttempts: 8 });
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map((n) => retryDelayMs(n) / 60_000)).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
  });

  it("bounces only a permanent refusal of the recipient; retries the rest", () => {
    const rcpt550 = Object.assign(new Error("Can't send mail - all recipients were rejected: 550 5.1.1 no such user"), {
      code: "EENVELOPE",
      responseCode: 550,
      command: "RCPT TO",
      rejected: ["gone@example.com"],
    });
    expect(classifySendError(rcpt550).kind).toBe("bounce");
    expect(classifySendError(Object.assign(new Error("451 try later"), { code: "EENVELOPE", responseCode: 451, command: "RCPT TO" })).kind).toBe("retry");
    expect(classifySendError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ESOCKET", command: "CONN" })).kind).toBe("retry");
    expect(classifySendError(Object.assign(new Error("535 bad login"), { code: "EAUTH", responseCode: 535, command: "AUTH PLAIN" })).kind).toBe("retry");
    expect(classifySendError(Object.assign(new Error("Invalid recipient"), { code: "EENVELOPE", command: "API" })).kind).toBe("fail");
    expect(classifySendError("not even an error").kind).toBe("retry");
  });
});
