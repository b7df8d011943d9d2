import type { Metadata } from "next";
import { ssoSettings } from "@/lib/core/auth/options";
import { requirePageUser } from "@/lib/core/auth/session";
import { getStore } from "@/lib/core/store";
import { listUsers } from "@/lib/features/users/admin";
import { UserAdmin } from "@/components/users/user-admin";
import { PAGE_WIDTH } from "@/components/ui/page";

export const metadata: Metadata = { title: "Users" };

/** Who may sign in, and as what (admins). */
export default async function UsersPage() {
  const user = await requirePageUser("/users", "admin");
  const users = await listUsers(await getStore(), ssoSettings());
  return (
    <main className={`${PAGE_WIDTH} py-4 sm:py-6`}>
      <h1 className="text-2xl font-semibold">Users</h1>
      <p className="mt-1 text-sm text-slate-700">
        Admins manage users; analysts build and share reports; viewers open what is shared with them. Disabling a user or
        resetting their password ends their sessions at once.
      </p>
      <div className="mt-4">
        <UserAdmin initial={users} selfId={user.id} />
      </div>
    </main>
  );
}
