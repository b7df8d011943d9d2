import type { Metadata } from "next";
import { listAlertRules } from "@/lib/features/notifications/alert-rules";
import { requirePageUser } from "@/lib/core/auth/session";
import { mailStatusLine } from "@/lib/features/notifications/mail-queue";
import { serverEnv } from "@/lib/core/env/env";
import { sinkFolder } from "@/lib/core/mail/sink-viewer";
import { monitorConfig } from "@/lib/features/monitor/config";
import { reportTimeZone } from "@/lib/report/timezone";
import { listSavedReports } from "@/lib/features/saved-reports";
import { getStore } from "@/lib/core/store";
import { usersRepo } from "@/lib/core/auth/users";
import { listSubscriptions } from "@/lib/features/notifications/subscriptions";
import { AlertsManager } from "@/components/notifications/lazy-alerts-manager";
import { checkAlerts, checkSubscription } from "@/components/notifications/checked";
import { alertVocabulary } from "@/components/notifications/vocabulary";
import type { AlertsAnswer, SubscriptionView } from "@/components/notifications/answers";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Alerts" };

/** Alert rules and scheduled reports by e-mail: an analyst's own; an admin's, everyone's. */
export default async function AlertsPage() {
  const user = await requirePageUser("/alerts", "analyst");
  const db = await getStore();
  const [rules, subscriptions, users, saved] = await Promise.all([listAlertRules(db, user), listSubscriptions(db, user), usersRepo(db).list(), listSavedReports(db, user)]);
  const programmes = monitorConfig().programs.map((p) => ({ id: p.id, name: p.name }));
  // As the API answers them (dates as ISO strings), so the browser's refetches look the same.
  const asJson = <T,>(v: unknown): T => JSON.parse(JSON.stringify(v)) as T;
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <h1 className="text-2xl font-semibold">Alerts</h1>
      <p className="mt-1 max-w-3xl text-sm text-slate-700">
        Alert rules check a number on a schedule and tell you when it crosses a line; scheduled reports send a saved report or dashboard by e-mail. Times are in the reporting time zone (
        {reportTimeZone()}).
      </p>
      {user.role === "admin" && sinkFolder(serverEnv()) ? (
        <p className="mt-1 text-sm text-slate-700">
          E-mail goes to the demo mail sink: read what it kept under{" "}
          <a className="text-blue-800 underline" href="/mail">
            Demo mail
          </a>
          .
        </p>
      ) : null}
      <div className="mt-4">
        {/* No react-query provider: the lists refetch with a small hook; a filter's row brings its own. */}
        <AlertsManager
          initial={{
            // Checked here, so the browser draws them without loading the schemas.
            alerts: checkAlerts(asJson<AlertsAnswer>({ rules, mail: mailStatusLine() })),
            subscriptions: asJson<SubscriptionView[]>(subscriptions).map(checkSubscription),
            users: users.filter((u) => !u.disabled).map((u) => ({ id: u.id, email: u.email, role: u.role })),
            saved: saved
              .filter((r) => r.page !== "monitor")
              .map((r) => ({ id: r.id, name: r.name, page: r.page, params: r.params, ownerEmail: r.ownerEmail })),
          }}
          programmes={programmes}
          words={alertVocabulary()}
          selfId={user.id}
          timeZone={reportTimeZone()}
        />
      </div>
    </main>
  );
}
