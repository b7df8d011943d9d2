// GET /api/alerts: the alert rules this user owns (admins: all), with recent evaluations, and whether e-mail is on. POST: create one (analysts).
import { apiRoute } from "@/lib/core/route/handler";
import { AlertRuleInput, createAlertRule, listAlertRules } from "@/lib/features/notifications/alert-rules";
import { mailPolicy, mailStatusLine } from "@/lib/features/notifications/runtime";
import { monitorConfig } from "@/lib/features/monitor/config";
import { getStore } from "@/lib/core/store";

export const GET = apiRoute({ role: "analyst" }, async ({ user }) => ({ rules: await listAlertRules(await getStore(), user), mail: mailStatusLine() }));

export const POST = apiRoute({ role: "analyst", schema: AlertRuleInput }, async ({ user, body }) =>
  Response.json({ rule: await createAlertRule(await getStore(), user, body, monitorConfig(), mailPolicy()) }, { status: 201 }),
);
