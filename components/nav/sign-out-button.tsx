"use client";

/** Signs out through next-auth, whose browser client is loaded on the click: no page needs it before. */
export function SignOutButton() {
  return (
    <button
      type="button"
      onClick={() => void import("next-auth/react").then(({ signOut }) => signOut({ callbackUrl: "/login" }))}
      className="rounded border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100 focus:outline-2 focus:outline-offset-2 focus:outline-blue-700"
    >
      Sign out
    </button>
  );
}
