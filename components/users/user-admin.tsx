"use client";
/**
 * The admin's user list: add a user, change a role, disable or enable, reset a password. A generated
 * password is shown once, in a panel the admin dismisses; the server keeps only its hash.
 */
import { apiFetch } from "@/lib/core/api-client/fetch";
import { useId, useState, type FormEvent } from "react";
import { ROLES, type Role } from "@/lib/core/auth/roles";
import type { UserView } from "@/lib/features/users/admin";
import { Button } from "@/components/ui/button";
import { Field, inputClass } from "@/components/ui/field";
import { Select } from "@/components/ui/select";

const ROLE_OPTIONS = ROLES.map((r) => ({ value: r, label: r }));

/** An API call as a result the form can show: the answer, or the server's message. */
async function call<T>(url: string, init: { method: string; body?: unknown }): Promise<{ ok: true; body: T } | { ok: false; message: string }> {
  try {
    return { ok: true, body: await apiFetch<T>(url, init) };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : "The request failed." };
  }
}

const SIGN_IN_LABEL: Record<UserView["sign_in"], string> = {
  local: "Password",
  company: "Company sign-in",
  "company and local": "Company sign-in and password",
  "password refused": "None: passwords are off (SSO only)",
};

const day = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "never");

export function UserAdmin({ initial, selfId }: { initial: UserView[]; selfId: string }) {
  const [users, setUsers] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [revealed, setRevealed] = useState<{ email: string; password: string; reason: string } | null>(null);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [busy, setBusy] = useState(false);
  const id = useId();

  const replace = (u: UserView) => setUsers((cur) => [...cur.filter((x) => x.id !== u.id), u].sort((a, b) => a.email.localeCompare(b.email)));

  const add = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const r = await call<{ user: UserView; password: string }>("/api/users", { method: "POST", body: { email: email.trim(), role } });
    setBusy(false);
    if (!r.ok) return setError(r.message);
    replace(r.body.user);
    setRevealed({ email: r.body.user.email, password: r.body.password, reason: "new account" });
    setEmail("");
  };
  const patch = async (u: UserView, body: { role?: Role; disabled?: boolean; routing?: boolean }) => {
    setError(null);
    const r = await call<{ user: UserView }>(`/api/users/${u.id}`, { method: "PATCH", body });
    if (!r.ok) return setError(r.message);
    replace(r.body.user);
  };
  const reset = async (u: UserView) => {
    if (!window.confirm(`Give ${u.email} a new password? Their current sessions end.`)) return;
    setError(null);
    const r = await call<{ user: UserView; password: string }>(`/api/users/${u.id}/password`, { method: "POST" });
    if (!r.ok) return setError(r.message);
    setRevealed({ email: u.email, password: r.body.password, reason: "new password" });
  };

  return (
    <div className="space-y-6">
      <form onSubmit={(e) => void add(e)} className="flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-4" aria-label="Add a user">
        <Field id={`${id}-email`} label="E-mail" className="min-w-64 flex-1">
          <input id={`${id}-email`} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} className={inputClass} autoComplete="off" />
        </Field>
        <Field id={`${id}-role`} label="Role" className="w-40">
          <Select id={`${id}-role`} options={ROLE_OPTIONS} value={role} onChange={(e) => setRole(e.target.value as Role)} />
        </Field>
        <Button type="submit" variant="primary" disabled={busy}>
          Add user
        </Button>
      </form>

      {error ? (
        <p role="alert" className="text-sm text-red-800">
          {error}
        </p>
      ) : null}
      {revealed ? (
        <div role="status" className="rounded border border-amber-300 bg-amber-50 p-4 text-sm">
          <p>
            Password for <strong>{revealed.email}</strong> ({revealed.reason}). It is shown only now: hand it over in a safe way.
          </p>
          <p className="mt-2 flex flex-wrap items-center gap-2">
            <code aria-label="Generated password" className="rounded bg-white px-2 py-1 font-mono text-base">
              {revealed.password}
            </code>
            <Button size="sm" onClick={() => void navigator.clipboard?.writeText(revealed.password)}>
              Copy
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setRevealed(null)}>
              Done
            </Button>
          </p>
        </div>
      ) : null}

      <div className="overflow-x-auto rounded border border-slate-200 bg-white">
        <table className="min-w-full text-sm">
          <caption className="sr-only">Dashboard users</caption>
          <thead className="bg-slate-50 text-left">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">E-mail</th>
              <th scope="col" className="px-3 py-2 font-medium">Role</th>
              <th scope="col" className="px-3 py-2 font-medium">
                <abbr title="May change live routing on the Routing page (admins always may; viewers cannot read routing)">Routing</abbr>
              </th>
              <th scope="col" className="px-3 py-2 font-medium">Status</th>
              <th scope="col" className="px-3 py-2 font-medium">
                <abbr title="Company sign-in: the identity provider's groups set the role and routing permission again at each sign-in">Sign-in</abbr>
              </th>
              <th scope="col" className="px-3 py-2 font-medium">Last sign-in (UTC)</th>
              <th scope="col" className="px-3 py-2 font-medium">
                <abbr title="E-mails this user's alert rules and scheduled reports queued in the last 24 hours (bounded by MAIL_PER_USER_PER_DAY)">Mail, 24 h</abbr>
              </th>
              <th scope="col" className="px-3 py-2 font-medium">Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => {
              const self = u.id === selfId;
              return (
                <tr key={u.id} className="border-t border-slate-200">
                  <th scope="row" className="px-3 py-2 text-left font-normal">
                    {u.email}
                    {self ? <span className="ml-2 text-xs text-slate-700">(you)</span> : null}
                  </th>
                  <td className="px-3 py-2">
                    <Select
                      aria-label={`Role of ${u.email}`}
                      options={ROLE_OPTIONS}
                      value={u.role}
                      disabled={self}
                      onChange={(e) => void patch(u, { role: e.target.value as Role })}
                      className="min-h-8 w-32 py-1"
                    />
                    {u.sign_in === "local" ? null : <p className="mt-1 text-xs text-slate-700">Until their next sign-in, when their groups set it</p>}
                  </td>
                  <td className="px-3 py-2">
                    <input
                      type="checkbox"
                      aria-label={`${u.email} may change routing`}
                      checked={u.role === "admin" || u.routing}
                      disabled={self || u.role !== "analyst"}
                      title={u.role === "admin" ? "Admins may always change routing" : u.role === "viewer" ? "Viewers cannot read routing; make them an analyst first" : undefined}
                      onChange={(e) => void patch(u, { routing: e.target.checked })}
                      className="size-4"
                    />
                  </td>
                  <td className="px-3 py-2">{u.disabled ? <span className="font-medium text-red-800">Disabled</span> : "Active"}</td>
                  <td className="px-3 py-2">{SIGN_IN_LABEL[u.sign_in]}</td>
                  <td className="px-3 py-2 whitespace-nowrap">{day(u.last_login_at)}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{u.mail_last_day}</td>
                  <td className="px-3 py-2">
                    {self ? null : (
                      <div className="flex flex-wrap gap-2">
                        <Button
                          size="sm"
                          variant={u.disabled ? "secondary" : "danger"}
                          aria-label={`${u.disabled ? "Enable" : "Disable"} ${u.email}`}
                          onClick={() => void patch(u, { disabled: !u.disabled })}
                        >
                          {u.disabled ? "Enable" : "Disable"}
                        </Button>
                        <Button size="sm" aria-label={`Reset password of ${u.email}`} onClick={() => void reset(u)}>
                          Reset password
                        </Button>
                      </div>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}
