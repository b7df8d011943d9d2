"use client";
import { useId, useState } from "react";
import { BIN_MEANING, checkBin, fromCardNote, gatewayLabel, LOOKUP_MODES, nextBinInput, type BinInput, type LookupMode } from "@/lib/features/bin-lookup/lookup";
import { ROUTING_SALES_TYPES } from "@/lib/contract/routing-values";
import { RequestError } from "@/lib/core/api-client/fetch";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { describedBy, Field, inputClass } from "@/components/ui/field";
import { lazyPart } from "@/components/ui/lazy-part";
import { Select } from "@/components/ui/select";
import { Spinner } from "@/components/ui/spinner";
import { StatusBanner } from "@/components/ui/status-banner";
import { LookupModePicker } from "./lookup-mode";
import { RouteResult } from "./route-result";
import { loadRoutingSchema, useLookup } from "./use-lookup";

export { loadRoutingSchema };

// The last 90 days' code (with react-query, the evidence's formatting and the catalog it reads) is
// loaded with the first lookup, which mounts it: it fetches beside the lookup and shows once the
// route is in. Nothing to show while it loads.
const EvidencePanel = lazyPart(() => import("./evidence-panel").then((m) => m.default), null);

type FormState = { bin: string; sales_type: string; customer_id: string; product_id: string; email: string };
const EMPTY: FormState = { bin: "", sales_type: "", customer_id: "", product_id: "", email: "" };
export const SALES_TYPE_LABELS: Record<(typeof ROUTING_SALES_TYPES)[number], string> = {
  INITIALS: "Initials (initial and straight sales)",
  REBILLS: "Rebills",
};

/** The request body: only the fields filled in. */
export function routingBody(f: Pick<FormState, "bin" | "sales_type"> & Partial<FormState>): Record<string, string> {
  const out: Record<string, string> = { bin: f.bin.trim() };
  for (const k of ["sales_type", "customer_id", "product_id", "email"] as const) {
    const v = f[k]?.trim();
    if (v) out[k] = v;
  }
  return out;
}

export function SingleLookup({ timeZone }: { timeZone: string }) {
  const id = useId();
  const [form, setForm] = useState<FormState>(EMPTY);
  const [errors, setErrors] = useState<Partial<Record<keyof FormState, string>>>({});
  const [binTouched, setBinTouched] = useState(false);
  /** Set while the field holds the BIN of a card number typed or pasted into it (the BIN only). */
  const [card, setCard] = useState<Omit<BinInput, "value"> | null>(null);
  const cardNote = card?.fromCard ? fromCardNote(card.fromCard, card.typed ? "typed" : "pasted") : null;
  const [mode, setMode] = useState<LookupMode>("preview");
  const mutation = useLookup();
  const answeredBin = mutation.variables?.body.bin;
  // An answer stays on screen only as what it is: the answer for the BIN it was asked about.
  const stale = mutation.isSuccess && answeredBin !== undefined && answeredBin !== form.bin.trim();

  const bin = checkBin(form.bin);
  const binError = errors.bin ?? (bin.state === "invalid" || (binTouched && bin.state === "incomplete") ? bin.message : undefined);
  const binHint =
    bin.state === "ok" || bin.state === "incomplete" ? bin.message : "6 to 8 digits, the start of the card number; a typed or pasted card number gives its first 8.";
  const set = (k: keyof FormState) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
    const value = e.target.value;
    setForm((f) => ({ ...f, [k]: value }));
    setErrors((x) => ({ ...x, [k]: undefined }));
  };
  // Only the BIN of a pasted or typed card number outlives this event: the rest is never in state,
  // so never in the field, a request, the status line or a log. Typed, the number comes a key at a
  // time: what the field held says whether this key continues a card number after its BIN.
  const setBin = (e: React.ChangeEvent<HTMLInputElement>) => {
    const { value, ...taken } = nextBinInput({ value: form.bin, ...card }, e.target.value);
    setForm((f) => ({ ...f, bin: value }));
    setErrors((x) => ({ ...x, bin: undefined }));
    setCard(taken.fromCard ? taken : null);
  };

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBinTouched(true);
    const body = routingBody(form);
    const parsed = (await loadRoutingSchema()).safeParse(body);
    if (!parsed.success) {
      // Bad input never leaves the previous BIN's answer looking like this one's.
      mutation.reset();
      const next: Partial<Record<keyof FormState, string>> = {};
      for (const issue of parsed.error.issues) {
        const k = String(issue.path[0] ?? "bin") as keyof FormState;
        next[k] ??= issue.message;
      }
      // The BIN in a user's words, not the schema's.
      if (next.bin !== undefined) next.bin = bin.state === "empty" ? `${BIN_MEANING}; enter one.` : bin.state === "ok" ? next.bin : bin.message;
      setErrors(next);
      return;
    }
    mutation.mutate({ body, mode });
  };

  const fid = (k: string) => `${id}-${k}`;
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(18rem,24rem)_minmax(0,1fr)]">
      <form aria-label="BIN lookup" className="flex flex-col gap-4 rounded-lg border border-slate-200 bg-white p-4 lg:self-start" onSubmit={(e) => void submit(e)} onFocus={() => void loadRoutingSchema()} noValidate>
        <Field id={fid("bin")} label="BIN" hint={binError ? undefined : binHint} error={binError}>
          <input
            id={fid("bin")}
            className={inputClass}
            inputMode="numeric"
            autoComplete="off"
            required
            value={form.bin}
            onChange={setBin}
            onBlur={() => setBinTouched(true)}
            aria-invalid={binError !== undefined}
            aria-describedby={[describedBy(fid("bin"), !binError, binError), cardNote ? fid("card") : null].filter(Boolean).join(" ") || undefined}
          />
        </Field>
        <p id={fid("card")} role="status" aria-label="BIN from card number" className={cardNote ? "-mt-2 text-xs text-slate-700" : "sr-only"}>
          {cardNote}
        </p>
        <Field id={fid("sales")} label="Sales type" hint="Which routing groups may answer; any when not set.">
          <Select
            id={fid("sales")}
            value={form.sales_type}
            onChange={set("sales_type")}
            aria-describedby={`${fid("sales")}-hint`}
            options={[{ value: "", label: "Any" }, ...ROUTING_SALES_TYPES.map((t) => ({ value: t, label: SALES_TYPE_LABELS[t] }))]}
          />
        </Field>
        {(["customer_id", "product_id"] as const).map((k) => (
          <Field key={k} id={fid(k)} label={k === "customer_id" ? "Customer ID (optional)" : "Product ID (optional)"} error={errors[k]}>
            <input
              id={fid(k)}
              className={inputClass}
              maxLength={128}
              autoComplete="off"
              value={form[k]}
              onChange={set(k)}
              aria-invalid={errors[k] !== undefined}
              aria-describedby={describedBy(fid(k), false, errors[k])}
            />
          </Field>
        ))}
        <Field id={fid("email")} label="E-mail (optional)" hint="Recorded with the decision as a hash only." error={errors.email}>
          <input
            id={fid("email")}
            type="email"
            className={inputClass}
            autoComplete="off"
            value={form.email}
            onChange={set("email")}
            aria-invalid={errors.email !== undefined}
            aria-describedby={describedBy(fid("email"), true, errors.email)}
          />
        </Field>
        <LookupModePicker value={mode} onChange={setMode} />
        <div>
          <Button type="submit" variant="primary" disabled={mutation.isPending}>
            {mutation.isPending ? <Spinner /> : null} {mode === "preview" ? "Preview route" : "Route as a real order"}
          </Button>
        </div>
      </form>
      <section aria-labelledby={`${id}-result`} className="flex min-h-96 flex-col gap-3">
        <h2 id={`${id}-result`} className="text-lg font-semibold">
          Route
        </h2>
        <StatusBanner
          label="Lookup status"
          tone={mutation.isPending ? "progress" : mutation.isError ? "error" : mutation.isSuccess ? "success" : "neutral"}
          busy={mutation.isPending}
          title={
            mutation.isPending ? "Looking up" : mutation.isError ? "Failed" : mutation.isSuccess ? LOOKUP_MODES[mutation.data.mode].done : "Not looked up yet"
          }
          detail={
            mutation.isPending
              ? `${mutation.variables.mode === "preview" ? "Previewing" : "Routing"} BIN ${mutation.variables.body.bin}…`
              : mutation.isError
                ? mutation.error instanceof RequestError
                  ? mutation.error.message
                  : "Something went wrong."
                : mutation.isSuccess
                  ? mutation.data.mode === "preview"
                    ? `BIN ${answeredBin} would go to gateway ${gatewayLabel(mutation.data.gateway_id, mutation.data.gateway_names)}; nothing advanced.${stale ? ` This answer is for BIN ${answeredBin}, not the BIN now in the field.` : ""}`
                    : `BIN ${answeredBin} went to gateway ${gatewayLabel(mutation.data.gateway_id, mutation.data.gateway_names)}; the rotation advanced.${stale ? ` This answer is for BIN ${answeredBin}, not the BIN now in the field.` : ""}`
                  : "Enter a BIN, then preview or route it."
          }
          action={mutation.error instanceof RequestError ? mutation.error.action : undefined}
        />
        {mutation.isSuccess ? (
          <RouteResult result={mutation.data} timeZone={timeZone} previous={stale ? (answeredBin ?? null) : null} />
        ) : (
          <div className="h-64">
            {mutation.isPending ? (
              <div className="flex h-full items-center justify-center gap-2 text-sm text-slate-700">
                <Spinner /> Routing…
              </div>
            ) : mutation.isError ? (
              <EmptyState tone="error" title="No route">
                See the status above for the reason.
              </EmptyState>
            ) : (
              <EmptyState title="No lookup yet">The gateway, its group, the rotation and the card&apos;s issuer will show here.</EmptyState>
            )}
          </div>
        )}
        {/* Mounted with the lookup, so the last 90 days are fetched beside it (not after it); shown with its answer. */}
        {answeredBin ? <EvidencePanel bin={answeredBin} show={mutation.isSuccess} timeZone={timeZone} dimmed={stale} /> : null}
      </section>
    </div>
  );
}
