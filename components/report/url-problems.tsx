"use client";
import type { UrlProblem } from "@/lib/report/state/url-check";
import { Button } from "@/components/ui/button";

/**
 * Shown instead of running a report whose link asks for something the page cannot apply: which
 * parameter, why, and one click to the nearest report that can run exactly.
 */
export function UrlProblems({ problems, onOpenNearest }: { problems: readonly UrlProblem[]; onOpenNearest: () => void }) {
  return (
    <div role="alert" aria-labelledby="url-problems-title" className="flex flex-col gap-3 rounded-md border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-950">
      <p id="url-problems-title" className="font-semibold">
        This link asks for something the report cannot apply exactly, so nothing was run.
      </p>
      <ul className="flex list-disc flex-col gap-1 pl-5">
        {problems.map((p, i) => (
          <li key={`${p.param}-${i}`} className="break-words">
            <code className="rounded bg-white/70 px-1 font-mono text-xs">{p.param}</code>: {p.message}
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap items-center gap-3">
        <Button variant="primary" onClick={onOpenNearest}>
          Open the nearest valid report
        </Button>
        <span className="text-xs text-red-900">It leaves out what is listed above, or brings it within its limit, and runs.</span>
      </div>
    </div>
  );
}
