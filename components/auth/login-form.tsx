"use client";
/** E-mail and password form; errors are announced (role="alert") and tied to the fields. */
import { signIn } from "next-auth/react";
import { useRef, useState, type FormEvent } from "react";
import { safeCallbackPath, signInErrorMessage } from "@/lib/core/auth/messages";

export function LoginForm({ callbackUrl, initialError }: { callbackUrl: string; initialError: string | null }) {
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);
  const passwordRef = useRef<HTMLInputElement>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      const res = await signIn("credentials", {
        email: String(form.get("email") ?? ""),
        password: String(form.get("password") ?? ""),
        redirect: false,
        callbackUrl,
      });
      if (res?.ok && !res.error) {
        // A full navigation, so server components render with the new session cookie; checked again
        // here against this page's own origin, whatever the server handed over.
        window.location.assign(safeCallbackPath(callbackUrl, "/", window.location.origin));
        return;
      }
      setError(signInErrorMessage(res?.error ?? "CredentialsSignin"));
    } catch {
      setError("Sign-in failed: the server could not be reached. Please try again.");
    }
    setPending(false);
    if (passwordRef.current) {
      passwordRef.current.value = "";
      passwordRef.current.focus();
    }
  }

  const described = error ? "login-error" : undefined;
  return (
    <form className="mt-6 space-y-4" onSubmit={onSubmit}>
      <div role="alert" aria-live="assertive" id="login-error" className={error ? "rounded border border-red-300 bg-red-50 p-3 text-sm text-red-800" : "sr-only"}>
        {error}
      </div>
      <div>
        <label htmlFor="email" className="block text-sm font-medium">
          E-mail
        </label>
        <input
          id="email"
          name="email"
          type="email"
          autoComplete="username"
          required
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          className="mt-1 w-full rounded border border-slate-300 px-3 py-2 focus:outline-2 focus:outline-offset-1 focus:outline-blue-700"
        />
      </div>
      <div>
        <label htmlFor="password" className="block text-sm font-medium">
          Password
        </label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          ref={passwordRef}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          className="mt-1 w-full rounded border border-slate-300 px-3 py-2 focus:outline-2 focus:outline-offset-1 focus:outline-blue-700"
        />
      </div>
      <button
        type="submit"
        disabled={pending}
        className="w-full rounded bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800 focus:outline-2 focus:outline-offset-2 focus:outline-blue-700 disabled:opacity-60"
      >
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
