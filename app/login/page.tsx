import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/auth/login-form";
import { signInErrorMessage, safeCallbackPath } from "@/lib/core/auth/messages";
import { getSessionUser } from "@/lib/core/auth/session";
import { serverEnv } from "@/lib/core/env/env";

export const metadata: Metadata = { title: "Sign in" };

type Search = Promise<Record<string, string | string[] | undefined>>;

/** The sign-in page; the one page (with share links) that needs no session. */
export default async function LoginPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackPath(params.callbackUrl, "/", serverEnv().NEXTAUTH_URL);
  if (await getSessionUser()) redirect(callbackUrl);
  const error = Array.isArray(params.error) ? params.error[0] : params.error;
  return (
    <main className="mx-auto flex min-h-[70vh] max-w-sm flex-col justify-center p-6">
      <h1 className="text-2xl font-semibold">Sign in</h1>
      <p className="mt-1 text-sm text-slate-600">Payments Analytics</p>
      <LoginForm callbackUrl={callbackUrl} initialError={signInErrorMessage(error)} />
    </main>
  );
}
