import type { Metadata } from "next";
import Link from "next/link";
import { ssoSettings } from "@/lib/core/auth/options";
import { SSO_REFUSALS, type SsoRefusal } from "@/lib/core/auth/sso-settings";

export const metadata: Metadata = { title: "No access" };

type Search = Promise<Record<string, string | string[] | undefined>>;

const WHY: Record<SsoRefusal, string> = {
  no_group: "Your account at the identity provider is in none of the groups that give access to Payments Analytics.",
  no_email: "The identity provider did not send an e-mail address for your account.",
  email_unverified: "The identity provider says your e-mail address is not verified.",
  email_taken: "An account with your e-mail address already exists here and is not linked to company sign-in.",
  disabled: "Your Payments Analytics account is disabled.",
};

/** Where company sign-in sends a person it refuses: what happened and whom to ask, never a default role. */
export default async function RefusedPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const raw = Array.isArray(params.reason) ? params.reason[0] : params.reason;
  const reason = (SSO_REFUSALS as readonly string[]).includes(raw ?? "") ? (raw as SsoRefusal) : null;
  const name = ssoSettings()?.name ?? "company sign-in";
  return (
    <main className="mx-auto flex min-h-[70vh] max-w-md flex-col justify-center p-6">
      <h1 className="text-2xl font-semibold">No access to Payments Analytics</h1>
      <p className="mt-4" data-testid="refusal">
        {reason ? WHY[reason] : "Company sign-in was refused."} You were signed in at {name}, but not here.
      </p>
      <p className="mt-2 text-sm text-slate-700">Ask your administrator to add you to a group that gives access, then sign in again.</p>
      <p className="mt-6">
        <Link className="underline" href="/login">
          Back to sign-in
        </Link>
      </p>
    </main>
  );
}
