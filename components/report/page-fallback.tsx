import { Spinner } from "@/components/ui/spinner";

/** Shown for the instant before a report page's client part takes over. */
export function PageFallback() {
  return (
    <div className="flex min-h-96 items-center justify-center gap-2 text-sm text-slate-700">
      <Spinner /> Loading…
    </div>
  );
}
