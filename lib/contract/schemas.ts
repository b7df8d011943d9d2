/**
 * The wire contract (SPEC.md §1–4) as zod 4 schemas. The service validates with these, the dashboard
 * validates with these before spending upstream quota, and the OpenAPI document is generated from them.
 *
 * This file only gathers the sections, each in its own module: scalars, report requests, records,
 * the success envelope and report answers, errors, tokens and BIN routing.
 */
export * from "./scalars";
export * from "./requests";
export * from "./records";
// successEnvelope is the builder of the schemas below; only the contract itself uses it.
export {
  parseReportResponse,
  type Pagination,
  type ReportResponse,
} from "./envelope";
export * from "./error-envelope";
export * from "./tokens";
export * from "./bin-routing";
