import type { ReactNode } from "react";
import type { StatusTone } from "@/lib/report/client/status";
import { cn } from "./cn";
import { Spinner } from "./spinner";

const tones: Record<StatusTone, string> = {
  neutral: "border-slate-300 bg-white text-slate-800",
  progress: "border-blue-300 bg-blue-50 text-blue-950",
  success: "border-emerald-300 bg-emerald-50 text-emerald-950",
  warning: "border-amber-300 bg-amber-50 text-amber-950",
  error: "border-red-300 bg-red-50 text-red-950",
};

/**
 * The always-visible status line: a polite live region (role="status") with a fixed minimum height
 * so that status changes never move the page. Actions (Cancel) sit beside it, outside the region.
 */
export function StatusBanner({
  tone,
  title,
  detail,
  action,
  busy,
  children,
  label = "Report status",
}: {
  tone: StatusTone;
  title: string;
  detail?: string;
  action?: string;
  busy?: boolean;
  children?: ReactNode;
  label?: string;
}) {
  return (
    <div className={cn("flex min-h-16 flex-wrap items-center gap-3 rounded-md border px-4 py-2", tones[tone])}>
      <div role="status" aria-label={label} aria-live="polite" className="flex min-w-0 flex-1 items-start gap-2 text-sm">
        {busy ? <Spinner className="mt-0.5 shrink-0" /> : null}
        <p className="min-w-0">
          <strong className="font-semibold">{title}.</strong> {detail}
          {action ? (
            <>
              {" "}
              <span className="font-medium">What to do: {action}</span>
            </>
          ) : null}
        </p>
      </div>
      {children ? <div className="flex shrink-0 items-center gap-2">{children}</div> : null}
    </div>
  );
}
