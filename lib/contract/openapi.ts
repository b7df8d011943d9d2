/** Builds the OpenAPI 3.1 document from the contract's zod schemas (zod 4's JSON Schema output). */
import { z } from "zod";
import { LIMITS } from "./catalog";
import { OPERATION_ROWS } from "./operations";
import { OPERATION_SCHEMAS } from "./operation-schemas";
import {
  BinRoutingRequestSchema,
  BinRoutingResponseSchema,
  ROUTING_CONFIG_PATH,
  ROUTING_CONFIG_PREVIEW_PATH,
  ROUTING_CONFIG_RESTORE_PATH,
  ROUTING_CONFIG_VALIDATE_PATH,
  ROUTING_CONFIG_VERSIONS_PATH,
  RoutingChangeRequestSchema,
  RoutingConfigVersionSchema,
  RoutingPreviewRequestSchema,
  RoutingPreviewSchema,
  RoutingValidateRequestSchema,
  RoutingRestoreRequestSchema,
  RoutingValidationSchema,
} from "./bin-routing";
import { ErrorEnvelopeSchema } from "./error-envelope";
import { TokenRequestSchema, TokenResponseSchema } from "./tokens";

type JsonObject = Record<string, unknown>;

function schema(s: z.ZodType, io: "input" | "output"): JsonObject {
  const out = z.toJSONSchema(s, { io, target: "draft-2020-12", unrepresentable: "any" }) as JsonObject;
  delete out.$schema;
  return out;
}

/** A reference to one of the document's named schemas: a JSON Pointer into its components section. */
function schemaRef(name: string): { $ref: string } {
  return { $ref: `#/${["components", "schemas", name].join("/")}` };
}

const errorRef = schemaRef("ErrorEnvelope");
function errors(...statuses: number[]): JsonObject {
  const text: Record<number, string> = {
    400: "Validation failed; `error.details` lists every problem with its JSON path",
    401: "Missing or invalid credentials",
    403: "The client lacks the scope this call needs",
    404: "Unknown path",
    405: "Known path, wrong method",
    413: `Body over ${LIMITS.maxBodyBytes / 1024} KiB`,
    409: "expected_version is not the live version; nothing was changed",
    415: "Content-Type is not application/json",
    429: "Rate limit exceeded; honour Retry-After (seconds)",
    500: "Unexpected error; the request_id is logged with the detail",
    503: "No active gateway to route to",
  };
  return Object.fromEntries(
    statuses.map((s) => [String(s), { description: text[s], content: { "application/json": { schema: errorRef } } }]),
  );
}

function jsonBody(ref: string) {
  return { required: true, content: { "application/json": { schema: schemaRef(ref) } } };
}
function ok(ref: string, description: string) {
  return { "200": { description, content: { "application/json": { schema: schemaRef(ref) } } } };
}

const clientHeaders = [
  { name: "x-client-id", in: "header", required: true, schema: { type: "string" } },
  { name: "x-client-secret", in: "header", required: true, schema: { type: "string" } },
];
const reportErrors = errors(400, 401, 413, 415, 429, 500);

export function buildOpenApiDocument(): JsonObject {
  return {
    openapi: "3.1.0",
    info: {
      title: "Order Summary and BIN Routing service",
      version: "1.0.0",
      description:
        "Order summaries by event date, cohort summaries by initial date, and BIN routing. " +
        "Generated from lib/contract by `npm run openapi`; do not edit by hand.",
    },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        ...Object.fromEntries(
          OPERATION_ROWS.flatMap((o) => [
            [o.openapi.request, schema(OPERATION_SCHEMAS[o.op].request, "input")],
            [o.openapi.response, schema(OPERATION_SCHEMAS[o.op].response, "output")],
          ]),
        ),
        TokenRequest: schema(TokenRequestSchema, "input"),
        TokenResponse: schema(TokenResponseSchema, "output"),
        BinRoutingRequest: schema(BinRoutingRequestSchema, "input"),
        BinRoutingResponse: schema(BinRoutingResponseSchema, "output"),
        ErrorEnvelope: schema(ErrorEnvelopeSchema, "output"),
        RoutingChangeRequest: schema(RoutingChangeRequestSchema, "input"),
        RoutingValidateRequest: schema(RoutingValidateRequestSchema, "input"),
        RoutingRestoreRequest: schema(RoutingRestoreRequestSchema, "input"),
        RoutingConfigVersion: schema(RoutingConfigVersionSchema, "output"),
        RoutingValidation: schema(RoutingValidationSchema, "output"),
        RoutingPreviewRequest: schema(RoutingPreviewRequestSchema, "input"),
        RoutingPreview: schema(RoutingPreviewSchema, "output"),
      },
    },
    paths: {
      "/api/auth/token": {
        post: {
          summary: "Issue an access token for an API client (JSON or form-encoded client_credentials)",
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: schemaRef("TokenRequest") },
              "application/x-www-form-urlencoded": { schema: schemaRef("TokenRequest") },
            },
          },
          responses: { ...ok("TokenResponse", "A signed bearer token"), ...errors(400, 401, 413, 415, 429, 500) },
        },
      },
      ...Object.fromEntries(
        OPERATION_ROWS.map((o) => [
          o.servicePath,
          {
            post: {
              summary: o.summary,
              security: [{ bearer: [] }],
              parameters: clientHeaders,
              requestBody: jsonBody(o.openapi.request),
              responses: { ...ok(o.openapi.response, o.message), ...reportErrors },
            },
          },
        ]),
      ),
      "/api/bin-routing/route": {
        post: {
          summary: "Pick a gateway for a card BIN",
          security: [{ bearer: [] }],
          requestBody: jsonBody("BinRoutingRequest"),
          responses: { ...ok("BinRoutingResponse", "The chosen gateway"), ...errors(400, 401, 413, 415, 429, 500, 503) },
        },
      },
      [BIN_ROUTING_PREVIEW_PATH]: {
        post: {
          summary: "Which gateway a BIN would get, without routing (extension)",
          description:
            "An extension of this service that the hosted original lacks (a client must not rely on it; it answers 404 there). " +
            "The same request, authentication, routing rate-limit bucket and response as /api/bin-routing/route, computed on a copy of the group's state: " +
            "no rotation advances, no counter moves and nothing is recorded. gateway_id and session_info are what the next routed call would get now; " +
            "total_calls counts that call. For RANDOM groups next_gateway_id is illustrative: the real draw happens when a call is routed.",
          "x-extension": true,
          security: [{ bearer: [] }],
          requestBody: jsonBody("BinRoutingRequest"),
          responses: { ...ok("BinRoutingResponse", "The gateway the next routed call would get"), ...errors(400, 401, 413, 415, 429, 500, 503) },
        },
      },
      ...routingConfigPaths(),
    },
  };
}

/** The live routing configuration's extension endpoints (docs/routing.md, "Live configuration"). */
function routingConfigPaths(): JsonObject {
  const ext = "An extension of this service (a client must not rely on it). ";
  const envelope = (ref: string, description: string) => ({
    "200": {
      description,
      content: { "application/json": { schema: { type: "object", properties: { success: { const: true }, code: { const: 200 }, message: { type: "string" }, data: schemaRef(ref), timestamp: { type: "string" } } } } },
    },
  });
  const configBody = (ref: string) => ({
    required: true,
    description: "The configuration in the `routing load` file format (docs/routing.md) with reason, author and optionally expected_version beside it",
    content: { "application/json": { schema: schemaRef(ref) } },
  });
  const common = { "x-extension": true, security: [{ bearer: [] }] };
  return {
    [ROUTING_CONFIG_PATH]: {
      get: { ...common, summary: "The live routing configuration version and each group's state (extension)", description: ext, responses: { ...envelope("RoutingConfigVersion", "The live version"), ...errors(401, 404, 429, 500) } },
      post: {
        ...common,
        summary: "Apply a new routing configuration version (extension; routing-admin scope)",
        description: `${ext}Validated like \`routing load\` (every problem listed, nothing applied on any), swapped in atomically and journalled.`,
        requestBody: configBody("RoutingChangeRequest"),
        responses: { ...envelope("RoutingConfigVersion", "The version applied"), ...errors(400, 401, 403, 409, 413, 415, 429, 500, 503) },
      },
    },
    [ROUTING_CONFIG_VERSIONS_PATH]: {
      get: { ...common, summary: "Every routing configuration version, newest first (extension)", description: ext, responses: { ...envelope("RoutingConfigVersion", "Each version (data is an array of these)"), ...errors(401, 429, 500) } },
    },
    [ROUTING_CONFIG_RESTORE_PATH]: {
      post: {
        ...common,
        summary: "Restore a routing configuration version, by default the previous one (extension; routing-admin scope)",
        description: ext,
        requestBody: jsonBody("RoutingRestoreRequest"),
        responses: { ...envelope("RoutingConfigVersion", "The new version"), ...errors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503) },
      },
    },
    [ROUTING_CONFIG_PREVIEW_PATH]: {
      post: {
        ...common,
        summary: "What routing would answer for each BIN under the live and a proposed configuration (extension)",
        description: `${ext}Decided on copies of the rotation state: nothing advances and nothing is journalled. A proposed configuration with problems is answered with them (proposed_valid false) and only the live side.`,
        requestBody: jsonBody("RoutingPreviewRequest"),
        responses: { ...envelope("RoutingPreview", "Per BIN, the live and the proposed decision"), ...errors(400, 401, 413, 415, 429, 500) },
      },
    },
    [ROUTING_CONFIG_VALIDATE_PATH]: {
      post: {
        ...common,
        summary: "Validate a routing configuration without applying it (extension)",
        description: ext,
        requestBody: configBody("RoutingValidateRequest"),
        responses: { ...envelope("RoutingValidation", "Every problem, and what the change would do to each group's rotation"), ...errors(401, 413, 415, 429, 500) },
      },
    },
  };
}

/** The preview extension's path (a service of this repository only; see docs/decisions.md). */
export const BIN_ROUTING_PREVIEW_PATH = "/api/bin-routing/preview";

/** The committed file's exact text, so staleness is a string comparison. */
export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
