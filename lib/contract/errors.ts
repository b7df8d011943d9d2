/**
 * The one typed error, shared by the service and the dashboard: a status from the contract's table,
 * a message a user can act on, and optional details with JSON paths.
 */
import type { z } from "zod";
import { ERROR_TYPES, detailsToMessage, issuesToDetails, type ErrorDetail, type ErrorStatus, type ErrorType } from "./error-envelope";

/** The mark every ApiError carries, the same in every copy of this module (Symbol.for). */
const API_ERROR = Symbol.for("payments-analytics.api-error");

export class ApiError extends Error {
  /**
   * `instanceof ApiError` holds for an ApiError made by another copy of this class: Next compiles the
   * instrumentation (which builds the process-wide report gateway at start) apart from the routes,
   * so a caller's mistake the gateway refuses must still answer 400, not 500.
   */
  static override [Symbol.hasInstance](x: unknown): boolean {
    return typeof x === "object" && x !== null && (x as { [API_ERROR]?: unknown })[API_ERROR] === true;
  }

  readonly [API_ERROR] = true;
  readonly type: ErrorType;
  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra response headers (Allow, WWW-Authenticate, Retry-After). */
    readonly headers: Record<string, string> = {},
    /** Extra top-level body fields (retry_after on 429). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.type = ERROR_TYPES[status];
  }

  /** What went wrong inside, for the server log only (never the response body). */
  internal?: string;

  withInternal(detail: unknown): this {
    this.internal = detail instanceof Error ? detail.message : String(detail);
    return this;
  }

  static badRequest(message: string, details?: ErrorDetail[]): ApiError {
    return new ApiError(400, message, details);
  }

  static fromZod(error: z.ZodError): ApiError {
    const details = issuesToDetails(error);
    return new ApiError(400, detailsToMessage(details), details);
  }

  /** `body` as `schema` says, or a 400 listing every problem with its path. */
  static parse<T>(schema: z.ZodType<T, unknown>, body: unknown): T {
    const r = schema.safeParse(body);
    if (!r.success) throw ApiError.fromZod(r.error);
    return r.data;
  }
}

/** The contract's error envelope (SPEC.md §1.3) for an ApiError. */
export function errorEnvelope(err: ApiError, requestId: string, now = new Date()) {
  return {
    success: false as const,
    code: err.status,
    message: err.message,
    error: { type: err.type, ...(err.details ? { details: err.details } : {}) },
    ...err.extra,
    request_id: requestId,
    timestamp: now.toISOString(),
  };
}
