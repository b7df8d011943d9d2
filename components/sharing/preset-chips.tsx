import type { RangePreset } from "@/lib/report/state/range";

function chip(active: boolean): string {
  return `rounded-full border px-3 py-1 text-sm ${active ? "border-blue-700 bg-blue-700 text-white" : "border-slate-300 bg-white text-slate-800 hover:bg-slate-100"}`;
}

/** The periods a share link lets its visitor switch to, besides the one it was shared with. */
export function PresetChips({ base, preset, allowed }: { base: string; preset: RangePreset | null; allowed: readonly { id: RangePreset; label: string }[] }) {
  if (allowed.length === 0) return null;
  return (
    <nav aria-label="Date range" className="mt-3 flex flex-wrap gap-2 print:hidden">
      <a href={base} aria-current={preset === null ? "page" : undefined} className={chip(preset === null)}>
        As shared
      </a>
      {allowed.map((p) => (
        <a key={p.id} href={`${base}?preset=${p.id}`} aria-current={preset === p.id ? "page" : undefined} className={chip(preset === p.id)}>
          {p.label}
        </a>
      ))}
    </nav>
  );
}
