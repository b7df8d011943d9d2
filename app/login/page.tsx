import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/auth/login-form";
import { SsoButton } from "@/components/auth/sso-button";
import { signInErrorMessage, safeCallbackPath } from "@/lib/core/auth/messages";
import { SSO_PROVIDER_ID, ssoSettings } from "@/lib/core/auth/options";
import { getSessionUser } from "@/lib/core/auth/session";
import { serverEnv } from "@/lib/core/env/env";

export const metadata: Metadata = { title: "Sign in" };

type Search = Promise<Record<string, string | string[] | undefined>>;

/**
 * The sign-in page; the one page (with share links) that needs no session. With company sign-in it
 * offers the identity provider's button; with OIDC_SSO_ONLY that button alone, and the password form
 * only behind the break-glass link (which accepts only the break-glass accounts).
 */
export default async function LoginPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackPath(params.callbackUrl, "/", serverEnv().NEXTAUTH_URL);
  if (await getSessionUser()) redirect(callbackUrl);
  const error = Array.isArray(params.error) ? params.error[0] : params.error;
  const sso = ssoSettings();
  const breakGlass = params.breakglass === "1";
  const showPasswords = !sso?.ssoOnly || breakGlass;
  return (
    <main className="mx-auto flex min-h-[70vh] max-w-sm flex-col justify-center p-6">
      <h1 className="text-2xl font-semibold">Sign in</h1>
      <p className="mt-1 text-sm text-slate-600">Payments Analytics</p>
      {sso && !breakGlass ? (
        <div className="mt-6">
          {!showPasswords && error ? (
            <div role="alert" className="mb-4 rounded border border-red-300 bg-red-50 p-3 text-sm text-red-800">
              {signInErrorMessage(error)}
            </div>
          ) : null}
          <SsoButton providerId={SSO_PROVIDER_ID} name={sso.name} callbackUrl={callbackUrl} />
        </div>
      ) : null}
      {showPasswords ? (
        <>
          {sso && !breakGlass ? <p className="mt-6 text-center text-sm text-slate-600">or with your e-mail and password</p> : null}
          {breakGlass ? <p className="mt-4 text-sm text-slate-700">Break-glass sign-in: only the accounts named for emergencies may sign in with a password.</p> : null}
          <LoginForm callbackUrl={callbackUrl} initialError={signInErrorMessage(error)} />
        </>
      ) : (
        <p className="mt-8 text-center text-xs text-slate-600">
          <Link className="underline" href={`/login?breakglass=1&callbackUrl=${encodeURIComponent(callbackUrl)}`}>
            Emergency access with a password
          </Link>
        </p>
      )}
    </main>
  );
}
