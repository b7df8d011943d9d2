"use client";
/** Company sign-in: one button with the identity provider's name; next-auth sends the browser there. */
import { signIn } from "next-auth/react";
import { useState } from "react";

export function SsoButton({ providerId, name, callbackUrl }: { providerId: string; name: string; callbackUrl: string }) {
  const [pending, setPending] = useState(false);
  return (
    <button
      type="button"
      disabled={pending}
      onClick={() => {
        setPending(true);
        // next-auth checks callbackUrl with the dashboard's redirect rule (lib/core/auth/messages.ts safeCallbackPath).
        void signIn(providerId, { callbackUrl }).catch(() => setPending(false));
      }}
      className="w-full rounded bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800 focus:outline-2 focus:outline-offset-2 focus:outline-blue-700 disabled:opacity-60"
    >
      {pending ? `Going to ${name}…` : `Continue with ${name}`}
    </button>
  );
}
