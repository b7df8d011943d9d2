/** The product's sections: where they are, what they are for, and the least role that opens them. */
import type { Role } from "@/lib/core/auth/roles";

export const SECTIONS = [
  { href: "/dashboards", label: "Dashboards", role: "viewer", purpose: "several reports on one page, under one date range and set of filters" },
  { href: "/explore", label: "Explore", role: "analyst", purpose: "order summaries by event date" },
  { href: "/cohorts", label: "Cohorts", role: "analyst", purpose: "retention by initial date and billing cycle" },
  { href: "/monitor", label: "Monitor", role: "viewer", purpose: "card-network programme ratios per MID, and alert-aware disputes" },
  { href: "/bin-lookup", label: "BIN lookup", role: "analyst", purpose: "which gateway a card BIN is routed to" },
  { href: "/routing", label: "Routing", role: "analyst", purpose: "the live BIN routing configuration, its versions, and changes under review" },
  { href: "/reports", label: "Saved reports", role: "viewer", purpose: "reports saved by your team, and their share links" },
  { href: "/alerts", label: "Alerts", role: "analyst", purpose: "alert rules and scheduled reports by e-mail" },
  { href: "/users", label: "Users", role: "admin", purpose: "who may sign in, and with which role" },
  { href: "/audit", label: "Audit log", role: "admin", purpose: "who signed in and changed access, sharing, automation and routing" },
  { href: "/definitions", label: "Definitions", role: "viewer", purpose: "every metric, KPI and dimension" },
] as const satisfies readonly { href: string; label: string; role: Role; purpose: string }[];

const ARTICLE: Record<Role, string> = { admin: "an admin", analyst: "an analyst", viewer: "a viewer" };
const PLURAL: Record<Role, string> = { admin: "admins", analyst: "analysts and admins", viewer: "everyone signed in" };

/**
 * Why a user was sent away from `path` (the `?denied=` of the home page), in their words; null when
 * `path` is not a section (nothing is said about paths the product does not have).
 */
export function deniedNotice(path: string | undefined, role: Role): string | null {
  if (!path) return null;
  const s = SECTIONS.find((x) => path === x.href || path.startsWith(`${x.href}/`) || path.startsWith(`${x.href}?`));
  if (!s) return null;
  return `${s.label} is for ${PLURAL[s.role]}; you are signed in as ${ARTICLE[role]}. Ask an administrator if you need it.`;
}
