"use client";
/**
 * The form that makes a share link: a label, live or snapshot (a Monitor link is always live), an
 * expiry in hours or days within the deployment's limits, an optional password, and the presets a
 * live link's viewer may switch to. The label and password are cleared once a link is made.
 */
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { COHORT_PRESETS, EXPLORE_PRESETS, presetLabel, type RangePreset } from "@/lib/report/state/range";
import type { SavedPage } from "@/lib/features/saved-reports/model";
import type { ShareLinkRequest } from "@/lib/features/sharing/link-input";
import type { LinkFormLimits } from "@/lib/features/sharing/model";

export function ShareLinkForm({
  page,
  limits,
  busy,
  onCreate,
}: {
  page: SavedPage;
  /** The deployment's limits, once the list of links has brought them. */
  limits: LinkFormLimits | null;
  busy: boolean;
  /** Asks for the link; true once it is made. */
  onCreate: (request: ShareLinkRequest) => Promise<boolean>;
}) {
  const formId = useId();
  const [mode, setMode] = useState<"live" | "snapshot">("live");
  const [label, setLabel] = useState("");
  const [amount, setAmount] = useState(30);
  const [unit, setUnit] = useState<"hours" | "days">("days");
  const [password, setPassword] = useState("");
  const [presets, setPresets] = useState<RangePreset[]>([]);
  const presetChoices = page === "cohorts" || page === "dashboard" ? COHORT_PRESETS : EXPLORE_PRESETS;
  const maxAmount = limits ? (unit === "hours" ? limits.maxHours : limits.maxDays) : undefined;

  const create = async () => {
    const made = await onCreate({
      mode,
      ...(unit === "hours" ? { expires_in_hours: amount } : { expires_in_days: amount }),
      ...(label.trim() ? { label: label.trim() } : {}),
      ...(password ? { password } : {}),
      ...(mode === "live" && presets.length ? { allowed_presets: presets } : {}),
    });
    if (made) {
      setPassword("");
      setLabel("");
    }
  };

  return (
    <form
      aria-label="New share link"
      className="grid gap-3 sm:grid-cols-2"
      onSubmit={(e) => {
        e.preventDefault();
        void create();
      }}
    >
      <label className="text-sm sm:col-span-2">
        <span className="block font-medium">Label (optional)</span>
        <input
          value={label}
          maxLength={limits?.labelMax}
          onChange={(e) => setLabel(e.target.value)}
          placeholder="e.g. For the bank manager"
          className="mt-1 w-full rounded border border-slate-300 px-2 py-1"
        />
      </label>
      {page === "monitor" ? (
        <p className="text-sm text-slate-700">A monitor link is always live: this month and the two before, as of when it is opened.</p>
      ) : (
        <fieldset className="text-sm">
          <legend className="font-medium">Data</legend>
          <label className="mr-4 inline-flex items-center gap-1">
            <input type="radio" name={`${formId}-mode`} checked={mode === "live"} onChange={() => setMode("live")} /> Live (fresh when opened)
          </label>
          <label className="inline-flex items-center gap-1">
            <input type="radio" name={`${formId}-mode`} checked={mode === "snapshot"} onChange={() => setMode("snapshot")} /> Snapshot (frozen now)
          </label>
        </fieldset>
      )}
      <fieldset className="text-sm">
        <legend className="font-medium">Expires after</legend>
        <div className="mt-1 flex items-center gap-2">
          <input
            type="number"
            aria-label="Expires after, amount"
            min={1}
            max={maxAmount}
            step={1}
            required
            value={Number.isFinite(amount) ? amount : ""}
            onChange={(e) => setAmount(e.target.valueAsNumber)}
            className="w-24 rounded border border-slate-300 px-2 py-1"
          />
          <select aria-label="Expires after, unit" value={unit} onChange={(e) => setUnit(e.target.value === "hours" ? "hours" : "days")} className="rounded border border-slate-300 px-2 py-1">
            <option value="hours">hours</option>
            <option value="days">days</option>
          </select>
        </div>
        {maxAmount !== undefined ? <span className="mt-1 block text-xs text-slate-700">1 to {maxAmount} {unit}; the link stops working at that date and time.</span> : null}
      </fieldset>
      <label className="text-sm">
        <span className="block font-medium">Password (optional)</span>
        <input type="password" minLength={8} value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" className="mt-1 w-full rounded border border-slate-300 px-2 py-1" />
      </label>
      {mode === "live" && page !== "monitor" ? (
        <fieldset className="text-sm">
          <legend className="font-medium">Viewer may switch to</legend>
          <div className="flex flex-wrap gap-x-3">
            {presetChoices.map((p) => (
              <label key={p} className="inline-flex items-center gap-1">
                <input type="checkbox" checked={presets.includes(p)} onChange={(e) => setPresets((cur) => (e.target.checked ? [...cur, p] : cur.filter((x) => x !== p)))} />
                {presetLabel(p)}
              </label>
            ))}
          </div>
        </fieldset>
      ) : null}
      <div className="sm:col-span-2">
        <Button type="submit" variant="primary" disabled={busy}>
          Create share link
        </Button>
      </div>
    </form>
  );
}
