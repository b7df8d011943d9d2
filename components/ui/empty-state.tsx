import type { ReactNode } from "react";
import { cn } from "./cn";

/** What a panel shows when it has nothing (yet): a title, a sentence, maybe an action. Fills its box. */
export function EmptyState({
  title,
  children,
  tone = "neutral",
  className,
}: {
  title: string;
  children?: ReactNode;
  tone?: "neutral" | "error";
  className?: string;
}) {
  return (
    <div
      className={cn(
        "flex h-full flex-col items-center justify-center gap-1 rounded-md border border-dashed p-6 text-center",
        tone === "error" ? "border-red-300 bg-red-50 text-red-900" : "border-slate-300 bg-white text-slate-700",
        className,
      )}
    >
      <p className="font-medium text-slate-900">{title}</p>
      {children ? <div className="max-w-prose text-sm">{children}</div> : null}
    </div>
  );
}
