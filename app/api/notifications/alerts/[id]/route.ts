// GET /api/notifications/alerts/:id (owner or admin) with its evaluations; PATCH edits or pauses it; DELETE deletes it.
import { apiRoute } from "@/lib/core/route/handler";
import { AlertRulePatch, deleteAlertRule, getAlertRule, updateAlertRule } from "@/lib/features/notifications/alert-rules";
import { mailPolicy } from "@/lib/features/notifications/slots";
import { monitorConfig } from "@/lib/features/monitor/config";

export const GET = apiRoute({ role: "analyst", store: true, params: ["id"] }, async ({ user, params, store }) => ({ rule: await getAlertRule(store, user, params.id) }));

export const PATCH = apiRoute({ role: "analyst", store: true, params: ["id"], schema: AlertRulePatch }, async ({ user, params, body, store }) => ({
  rule: await updateAlertRule(store, user, params.id, body, monitorConfig(), mailPolicy()),
}));

export const DELETE = apiRoute({ role: "analyst", store: true, params: ["id"] }, async ({ user, params, store }) => deleteAlertRule(store, user, params.id));
