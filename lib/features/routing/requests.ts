/** The routing workspace routes' request bodies: a change's configuration, reason and versions. */
import { z } from "zod";

const reasonField = z
  .string({ error: "reason is required: say why" })
  .trim()
  .min(1, { error: "reason must not be empty: say why" })
  .max(1000, { error: "reason must be at most 1000 characters" });
/** Deeper than any configuration in the file format can be (groups → members → a member's fields is 4). */
export const MAX_CONFIG_DEPTH = 16;

/** Whether `v` nests objects or arrays deeper than `max`, found without recursion (a hostile body may be thousands deep). */
export function deeperThan(v: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A change's own fields, which the dashboard sends beside the configuration and never takes from inside it. */
const CHANGE_FIELDS = ["reason", "author", "expected_version"] as const;

export const configField = z
  .unknown()
  .refine((v) => v !== undefined, { error: "config is required (the configuration in the file format)" })
  .superRefine((v, ctx) => {
    if (deeperThan(v, MAX_CONFIG_DEPTH)) {
      ctx.addIssue({ code: "custom", message: `config is nested deeper than ${MAX_CONFIG_DEPTH} levels; a routing configuration is never that deep` });
      return;
    }
    if (v === null || typeof v !== "object" || Array.isArray(v)) return;
    for (const field of CHANGE_FIELDS) {
      if (field in v) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `config must not carry ${field}: it is the change's own field${field === "reason" ? " (give it beside config)" : ", which the dashboard sets"}`,
        });
      }
    }
  });

export const ValidateRequest = z.strictObject({ config: configField });
export const ChangeRequest = z.strictObject({
  config: configField,
  reason: reasonField,
  base_version: z.int({ error: "base_version must be the live version number the change was made against" }).min(0),
});
export const RejectRequest = z.strictObject({ reason: reasonField });
export const RestoreRequest = z.strictObject({
  reason: reasonField,
  version: z.int({ error: "version must be a version number" }).min(1, { error: "version must be ≥ 1" }).optional(),
});
