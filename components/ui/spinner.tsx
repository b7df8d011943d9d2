import { cn } from "./cn";

/**
 * A decorative spinner; the status text next to it says what is happening. It turns only for those
 * who have not asked their system for less motion: for them the status text alone says it is busy.
 */
export function Spinner({ className }: { className?: string }) {
  return (
    <svg className={cn("size-4 motion-safe:animate-spin text-current", className)} viewBox="0 0 24 24" fill="none" aria-hidden="true">
      <circle cx="12" cy="12" r="10" stroke="currentColor" strokeOpacity="0.25" strokeWidth="4" />
      <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="4" strokeLinecap="round" />
    </svg>
  );
}
