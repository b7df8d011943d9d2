import type { Metadata } from "next";
import { requirePageUser } from "@/lib/core/auth/session";
import { reportTimeZone } from "@/lib/report/timezone";
import { getStore } from "@/lib/core/store";
import { inboxRepo } from "@/lib/features/notifications/inbox-store";
import { InboxList } from "@/components/notifications/inbox-list";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Inbox" };

/** What alerts and scheduled reports told the signed-in user, newest first. */
export default async function InboxPage() {
  const user = await requirePageUser("/inbox", "viewer");
  const inbox = inboxRepo(await getStore());
  const [messages, unread] = await Promise.all([inbox.list(user.id), inbox.unread(user.id)]);
  const timeZone = reportTimeZone();
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <h1 className="text-2xl font-semibold">Inbox</h1>
      <p className="mt-1 max-w-3xl text-sm text-slate-700">Messages from alert rules and scheduled reports that name you. Times are in the reporting time zone ({timeZone}).</p>
      <div className="mt-4 max-w-4xl">
        <InboxList initial={{ messages, unread }} timeZone={timeZone} />
      </div>
    </main>
  );
}
