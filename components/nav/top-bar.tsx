import Link from "next/link";
import type { SessionUser } from "@/lib/auth/authenticate";
import { SignOutButton } from "./sign-out-button";

/** The signed-in user's bar: product link, who is signed in and as what, sign out. */
export function TopBar({ user }: { user: SessionUser }) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-5xl items-center justify-between gap-4 px-6 py-3">
        <Link href="/" className="font-semibold">
          Payments Analytics
        </Link>
        <div className="flex items-center gap-3 text-sm">
          <span>
            <span className="sr-only">Signed in as </span>
            {user.email}
          </span>
          <span className="rounded bg-slate-100 px-2 py-0.5 text-xs font-medium uppercase tracking-wide text-slate-700" aria-label={`role: ${user.role}`}>
            {user.role}
          </span>
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
