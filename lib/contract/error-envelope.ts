/**
 * Errors on the wire (SPEC.md §1.3): the status → type table, the error envelope, and how zod
 * issues become its `{path, message}` details and one-sentence `message`.
 */
import { z } from "zod";
import { Timestamp } from "./scalars";

export const ERROR_TYPES = {
  400: "BadRequestError",
  401: "UnauthorizedError",
  403: "ForbiddenError",
  404: "NotFoundError",
  405: "MethodNotAllowedError",
  // Extension endpoints only: a change made against a version that is no longer live.
  409: "ConflictError",
  413: "PayloadTooLargeError",
  415: "UnsupportedMediaTypeError",
  429: "RateLimitError",
  500: "InternalServerError",
  503: "ServiceUnavailableError",
} as const;
export type ErrorStatus = keyof typeof ERROR_TYPES;
export type ErrorType = (typeof ERROR_TYPES)[ErrorStatus];

export const ErrorDetailSchema = z.object({ path: z.string(), message: z.string() });
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;

export const ErrorEnvelopeSchema = z.object({
  success: z.literal(false),
  code: z.int(),
  message: z.string(),
  error: z.object({
    type: z.enum(Object.values(ERROR_TYPES) as [ErrorType, ...ErrorType[]]),
    details: z.array(ErrorDetailSchema).optional(),
  }),
  retry_after: z.int().min(1).optional().meta({ description: "Seconds to wait; only on 429" }),
  request_id: z.string(),
  timestamp: Timestamp,
});

/** Renders a zod path as `filters.product_id[0]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? String(p) : `.${String(p)}`;
  }
  return out === "" ? "(body)" : out;
}

/** Every problem in a zod error as a `{path, message}` list; unknown keys each get their own path. */
export function issuesToDetails(error: z.ZodError): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        details.push({ path: formatPath([...issue.path, key]), message: `unknown field "${key}"` });
      }
    } else {
      details.push({ path: formatPath(issue.path), message: issue.message });
    }
  }
  return details;
}

/** One readable sentence for the envelope's `message`, naming the field(s). */
export function detailsToMessage(details: readonly ErrorDetail[]): string {
  const first = details[0];
  if (!first) return "Invalid request";
  const one = first.message.startsWith(first.path) ? first.message : `${first.path}: ${first.message}`;
  return details.length === 1 ? one : `${one} (and ${details.length - 1} more problem${details.length > 2 ? "s" : ""})`;
}

