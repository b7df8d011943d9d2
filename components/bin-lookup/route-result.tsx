import { gatewayLabel, LOOKUP_MODES } from "@/lib/features/bin-lookup/lookup";
import { formatInstant } from "@/lib/report/metrics/format";
import type { BinAnswer } from "@/lib/features/bin-lookup/upstream";

function Item({ id, label, children }: { id: string; label: string; children: React.ReactNode }) {
  return (
    <div className="flex flex-col gap-0.5 rounded-md bg-slate-50 px-3 py-2">
      <dt id={id} className="text-xs text-slate-700">
        {label}
      </dt>
      <dd aria-labelledby={id} className="text-base font-semibold break-words text-slate-900">
        {children}
      </dd>
    </div>
  );
}

/**
 * One routing answer: whether it was a preview or a real routing call, the gateway (named as reports
 * name it), the group and how it chose, and the card's issuer. `previous`: the BIN it answered, when
 * the field now holds another one.
 */
export function RouteResult({ result, timeZone, previous = null }: { result: BinAnswer; timeZone: string; previous?: string | null }) {
  const s = result.session_info;
  const b = result.bin_info ?? null;
  const id = (k: string) => `route-${k}`;
  return (
    <div className={`flex flex-col gap-3 ${previous ? "opacity-60" : ""}`}>
      <p data-testid="lookup-kind" className={`rounded-md px-3 py-2 text-sm font-medium ${result.mode === "preview" ? "bg-sky-50 text-sky-950" : "bg-amber-50 text-amber-950"}`}>
        {LOOKUP_MODES[result.mode].done}
        {result.mode === "preview" ? ": no rotation advanced." : ": the rotation advanced and the decision was recorded."}
        {previous ? ` This answer is for BIN ${previous}, the one looked up before.` : ""}
      </p>
      <dl className="grid grid-cols-1 gap-2 sm:grid-cols-2 xl:grid-cols-4" aria-label="Routing decision">
        <Item id={id("gateway")} label="Gateway">
          {gatewayLabel(result.gateway_id, result.gateway_names)}
        </Item>
        <Item id={id("group")} label="Group">
          {result.group_name} <span className="font-normal text-slate-700">(#{result.group_id})</span>
        </Item>
        <Item id={id("fallback")} label="Fallback">
          {result.is_fallback ? "Yes: no rule matched, the fallback group answered" : "No"}
        </Item>
        <Item id={id("rule")} label="Rule">
          {s.rule_name}
        </Item>
        <Item id={id("method")} label="Selection method">
          {s.selection_method}
        </Item>
        <Item id={id("position")} label="Position in group">
          {s.current_index + 1} of {s.total_mids} active
        </Item>
        <Item id={id("next")} label="Next gateway">
          {gatewayLabel(s.next_gateway_id, result.gateway_names)}
        </Item>
        <Item id={id("calls")} label="Total calls">
          {s.total_calls.toLocaleString("en-US")}
        </Item>
      </dl>
      <h3 className="text-sm font-semibold">Card</h3>
      {b ? (
        <dl className="grid grid-cols-1 gap-2 sm:grid-cols-2 xl:grid-cols-4" aria-label="Card issuer">
          <Item id={id("bin")} label="BIN">
            {b.bin}
          </Item>
          <Item id={id("issuer")} label="Issuer">
            {b.bank ?? "Unknown"}
          </Item>
          <Item id={id("brand")} label="Brand">
            {b.card_brand ?? "Unknown"}
          </Item>
          <Item id={id("type")} label="Card type">
            {b.card_type ?? "Unknown"}
          </Item>
        </dl>
      ) : (
        <p className="text-sm text-slate-700">The service has no issuer data for this BIN.</p>
      )}
      <p className="text-xs text-slate-600">
        {result.mode === "preview" ? "Previewed" : "Routed"} at {formatInstant(result.timestamp, timeZone)}.
      </p>
    </div>
  );
}
