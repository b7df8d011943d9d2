/**
 * Several service instances over one data set (docs/scale.md). One instance, the *owner*, holds the
 * DuckDB file and with it everything that must be counted in one place: clients, the routing state
 * (sequences, windows, the journal) and every rate-limit window. Any number of *replicas* answer
 * reports from ClickHouse and keep no state:
 *
 * - a report is first admitted by the owner: it checks the credentials and counts the call in the
 *   client's window, so a client's 5 reports a minute hold however many instances it spreads its
 *   calls over, and a client deactivated on the owner is refused everywhere at once;
 * - every other call (tokens, routing, preview) is relayed to the owner whole, so routing is as
 *   exact as on one instance: there is one sequence per group, in one process.
 *
 * Instances prove to each other that they are instances with a key derived from the token secret
 * they already share; the owner trusts a relayed caller address (for the token endpoint's
 * per-address limit) only from a request that carries it.
 */
import { createHmac } from "node:crypto";
import { Agent, request, type IncomingMessage, type ServerResponse } from "node:http";
import { z } from "zod";
import { ApiError } from "@/lib/contract/errors";
import { INSTANCE_KEY_HEADER, type Admission, type Credentials } from "./admission";
import type { AuthMode, Bucket, RequestContext } from "./route";

/** The owner's admission endpoint (answers only instances; 404 to anyone else). */
export const ADMIT_PATH = "/internal/admit";

/** The key instances share: derived from the token secret, so no new secret is configured, and not the secret itself. */
export function instanceKey(tokenSecret: string): string {
  return createHmac("sha256", tokenSecret).update("service-instance-key-v1").digest("hex");
}


export const AdmitRequestSchema = z.object({
  auth: z.enum(["client", "bearer"]),
  bucket: z.enum(["report", "routing"]),
  authorization: z.string().max(4096).optional(),
  client_id: z.string().max(512).optional(),
  client_secret: z.string().max(512).optional(),
});
export type AdmitRequest = z.infer<typeof AdmitRequestSchema>;

const AdmitAnswerSchema = z.discriminatedUnion("admitted", [
  z.object({ admitted: z.literal(true), client_id: z.string(), headers: z.record(z.string(), z.string()) }),
  z.object({
    admitted: z.literal(false),
    status: z.union([z.literal(401), z.literal(429)]),
    message: z.string(),
    headers: z.record(z.string(), z.string()),
    extra: z.record(z.string(), z.unknown()),
  }),
]);
export type AdmitAnswer = z.infer<typeof AdmitAnswerSchema>;

/** The owner's side of an admission: the decision of its own admission, as data. */
export async function decideAdmission(local: Admission, req: AdmitRequest, ctx: RequestContext): Promise<AdmitAnswer> {
  const credentials: Credentials = { authorization: req.authorization, clientId: req.client_id, clientSecret: req.client_secret };
  const probe: RequestContext = { ...ctx, clientId: null, headers: {} };
  try {
    await local.admit({ auth: req.auth, bucket: req.bucket }, credentials, probe);
    return { admitted: true, client_id: probe.clientId ?? "", headers: probe.headers };
  } catch (e) {
    if (!(e instanceof ApiError) || (e.status !== 401 && e.status !== 429)) throw e;
    return { admitted: false, status: e.status, message: e.message, headers: { ...probe.headers, ...e.headers }, extra: e.extra };
  }
}

/** How long a replica waits, by default, for its owner's answer to an admission or a relayed call. */
const OWNER_TIMEOUT_MS = 30_000;

const ownerUnreachable = (detail: unknown) =>
  new ApiError(503, "The service cannot reach its owner instance; try again shortly").withInternal(detail);

/** Headers relayed from a caller to the owner (the length is the body's as read), and back (no hop-by-hop header). */
const RELAYED_REQUEST_HEADERS = ["content-type", "authorization", "x-client-id", "x-client-secret", "accept"];
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"]);

/**
 * How many connections to the owner a replica keeps for relayed calls, how many of them one caller
 * address may use at once, and how many more of its calls may wait for one of those.
 */
/** Defaults of SERVICE_RELAY_CONNECTIONS, SERVICE_RELAY_PER_CLIENT and SERVICE_RELAY_QUEUE_PER_CLIENT (service/config.ts). */
export const RELAY_DEFAULTS = { connections: 32, perClient: 8, queuedPerClient: 256 } as const;

/** The most of an owner's answer to a relayed call a replica holds (its answers are a token or a routing decision). */
const MAX_RELAYED_ANSWER_BYTES = 1024 * 1024;

/**
 * A replica's link to the owner: admissions for its reports, and relays of every other call.
 * Admissions and relays have separate connection pools, so relayed calls can never take the
 * connections reports are admitted on; a relayed call takes a connection only once its body is
 * whole (service/http/server.ts), holds it only while the owner answers (the answer is read whole,
 * then sent on), and one caller address has at most `perClient` relayed calls at the owner at once:
 * its further calls wait in a line of its own (at most `queuedPerClient`), never in front of
 * another caller's.
 */
export class OwnerLink implements Admission {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly relayAgent: Agent;
  private readonly url: URL;
  /** Per caller address: its relayed calls at the owner now, and those waiting for one of them to end. */
  private readonly relaying = new Map<string, { active: number; waiting: (() => void)[] }>();
  private readonly perClient: number;
  private readonly queuedPerClient: number;

  constructor(
    ownerUrl: string,
    private readonly key: string,
    private readonly timeoutMs = OWNER_TIMEOUT_MS,
    relayLimits: { connections?: number; perClient?: number; queuedPerClient?: number } = {},
  ) {
    this.url = new URL(ownerUrl);
    this.relayAgent = new Agent({ keepAlive: true, maxSockets: relayLimits.connections ?? RELAY_DEFAULTS.connections });
    this.perClient = relayLimits.perClient ?? RELAY_DEFAULTS.perClient;
    this.queuedPerClient = relayLimits.queuedPerClient ?? RELAY_DEFAULTS.queuedPerClient;
  }

  async admit(route: { auth: AuthMode; bucket?: Bucket }, credentials: Credentials, ctx: RequestContext): Promise<void> {
    if (route.auth === "none") return;
    const body: AdmitRequest = {
      auth: route.auth,
      bucket: route.bucket ?? "report",
      ...(credentials.authorization !== undefined ? { authorization: credentials.authorization } : {}),
      ...(credentials.clientId !== undefined ? { client_id: credentials.clientId } : {}),
      ...(credentials.clientSecret !== undefined ? { client_secret: credentials.clientSecret } : {}),
    };
    const answer = await this.post(ADMIT_PATH, body, ctx.address);
    Object.assign(ctx.headers, answer.headers);
    if (!answer.admitted) throw new ApiError(answer.status, answer.message, undefined, {}, answer.extra);
    ctx.clientId = answer.client_id;
  }

  private post(path: string, body: unknown, address: string): Promise<AdmitAnswer> {
    const text = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const out = request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path,
          method: "POST",
          agent: this.agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text), "x-forwarded-for": address, [INSTANCE_KEY_HEADER]: this.key },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const parsed = res.statusCode === 200 ? AdmitAnswerSchema.safeParse(safeJson(Buffer.concat(chunks).toString("utf8"))) : null;
            if (parsed?.success) resolve(parsed.data);
            else reject(ownerUnreachable(`admission answered ${res.statusCode ?? "?"}`));
          });
          res.on("error", (e) => reject(ownerUnreachable(e)));
        },
      );
      out.setTimeout(this.timeoutMs, () => out.destroy(new Error(`the owner did not answer an admission within ${this.timeoutMs} ms`)));
      out.on("error", (e) => reject(ownerUnreachable(e)));
      out.end(text);
    });
  }

  /**
   * Relays a call to the owner as it came (method, path, body, credentials) and its answer back as
   * the owner gave it; the owner sees the caller's address. Resolves to the status sent. A caller
   * address with `perClient` calls at the owner waits its turn; one with `queuedPerClient` waiting
   * as well is refused (429) without waiting.
   */
  async relay(req: IncomingMessage, body: Buffer, res: ServerResponse, ctx: RequestContext): Promise<number> {
    await this.turn(ctx.address);
    try {
      const answer = await this.forward(req, body, ctx);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
      return answer.status;
    } finally {
      this.done(ctx.address);
    }
  }

  /** Resolves when `address` may have one more relayed call at the owner. */
  private turn(address: string): Promise<void> {
    let line = this.relaying.get(address);
    if (!line) this.relaying.set(address, (line = { active: 0, waiting: [] }));
    if (line.active < this.perClient) {
      line.active++;
      return Promise.resolve();
    }
    if (line.waiting.length >= this.queuedPerClient) {
      return Promise.reject(
        new ApiError(
          429,
          `Too many calls at once: ${this.perClient} calls from your address are being answered and ${line.waiting.length} more are already waiting, the most one address may have; retry in 1 s`,
          undefined,
          { "Retry-After": "1" },
          { retry_after: 1 },
        ),
      );
    }
    return new Promise((resolve) => line.waiting.push(resolve));
  }

  /** One of `address`'s relayed calls ended: the next in its line goes (keeping the slot), else the slot frees. */
  private done(address: string): void {
    const line = this.relaying.get(address);
    if (!line) return;
    const next = line.waiting.shift();
    if (next) return next();
    line.active--;
    if (line.active === 0) this.relaying.delete(address);
  }

  private forward(req: IncomingMessage, body: Buffer, ctx: RequestContext): Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { "x-forwarded-for": ctx.address, [INSTANCE_KEY_HEADER]: this.key, "content-length": body.length };
      for (const name of RELAYED_REQUEST_HEADERS) {
        const v = req.headers[name];
        if (typeof v === "string") headers[name] = v;
      }
      const out = request({ host: this.url.hostname, port: this.url.port, path: req.url ?? "/", method: req.method ?? "GET", agent: this.relayAgent, headers }, (answer) => {
        const back: Record<string, string | string[]> = {};
        for (const [name, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP_BY_HOP.has(name)) back[name] = v;
        const chunks: Buffer[] = [];
        let size = 0;
        answer.on("data", (c: Buffer) => {
          size += c.length;
          if (size > MAX_RELAYED_ANSWER_BYTES) answer.destroy(new Error(`the owner's answer to a relayed call passed ${MAX_RELAYED_ANSWER_BYTES} bytes`));
          else chunks.push(c);
        });
        answer.on("end", () => resolve({ status: answer.statusCode ?? 502, headers: back, body: Buffer.concat(chunks) }));
        answer.on("error", (e) => reject(ownerUnreachable(e)));
      });
      out.setTimeout(this.timeoutMs, () => out.destroy(new Error(`the owner did not answer a relayed call within ${this.timeoutMs} ms`)));
      out.on("error", (e) => reject(ownerUnreachable(e)));
      out.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
    this.relayAgent.destroy();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
