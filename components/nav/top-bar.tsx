import Link from "next/link";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { hasRole } from "@/lib/core/auth/roles";
import { PAGE_WIDTH } from "@/components/ui/page";
import { SECTIONS } from "@/lib/core/nav/sections";
import { InboxLink } from "@/components/notifications/inbox-link";
import { ThemeToggle } from "@/components/theme/theme-toggle";
import { SignOutButton } from "./sign-out-button";

/** The signed-in user's bar: product link, the sections their role opens, the inbox, who is signed in, sign out. */
export function TopBar({ user }: { user: SessionUser }) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className={`${PAGE_WIDTH} flex flex-wrap items-center justify-between gap-x-4 gap-y-2 py-3`}>
        <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
          <Link href="/" className="font-semibold">
            Payments Analytics
          </Link>
          <nav aria-label="Main" className="flex flex-wrap gap-x-3 text-sm">
            {SECTIONS.filter((s) => hasRole(user.role, s.role)).map((s) => (
              <Link key={s.href} href={s.href} className="text-slate-800 hover:underline">
                {s.label}
              </Link>
            ))}
          </nav>
        </div>
        <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-2 text-sm">
          <InboxLink />
          <span className="truncate">
            <span className="sr-only">Signed in as </span>
            {user.email}
          </span>
          <span className="rounded bg-slate-100 px-2 py-0.5 text-xs font-medium uppercase tracking-wide text-slate-700" aria-label={`role: ${user.role}`}>
            {user.role}
          </span>
          <ThemeToggle />
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
