// GET /api/notifications/alerts: the alert rules this user owns (admins: all), with recent evaluations, and whether e-mail is on. POST: create one (analysts).
import { apiRoute } from "@/lib/core/route/handler";
import { AlertRuleInput, createAlertRule, listAlertRules } from "@/lib/features/notifications/alert-rules";
import { mailPolicy } from "@/lib/features/notifications/slots";
import { mailStatusLine } from "@/lib/features/notifications/mail-queue";
import { monitorConfig } from "@/lib/features/monitor/config";

export const GET = apiRoute({ role: "analyst", store: true }, async ({ user, store }) => ({ rules: await listAlertRules(store, user), mail: mailStatusLine() }));

export const POST = apiRoute({ role: "analyst", store: true, schema: AlertRuleInput }, async ({ user, body, store }) =>
  Response.json({ rule: await createAlertRule(store, user, body, monitorConfig(), mailPolicy()) }, { status: 201 }),
);
