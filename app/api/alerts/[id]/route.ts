// GET /api/alerts/:id (owner or admin) with its evaluations; PATCH edits or pauses it; DELETE deletes it.
import { apiRoute } from "@/lib/core/route/handler";
import { AlertRulePatch, deleteAlertRule, getAlertRule, updateAlertRule } from "@/lib/features/notifications/alert-rules";
import { mailPolicy } from "@/lib/features/notifications/runtime";
import { monitorConfig } from "@/lib/features/monitor/config";
import { getStore } from "@/lib/core/store";

export const GET = apiRoute({ role: "analyst", params: ["id"] }, async ({ user, params }) => ({ rule: await getAlertRule(await getStore(), user, params.id) }));

export const PATCH = apiRoute({ role: "analyst", params: ["id"], schema: AlertRulePatch }, async ({ user, params, body }) => ({
  rule: await updateAlertRule(await getStore(), user, params.id, body, monitorConfig(), mailPolicy()),
}));

export const DELETE = apiRoute({ role: "analyst", params: ["id"] }, async ({ user, params }) => deleteAlertRule(await getStore(), user, params.id));
