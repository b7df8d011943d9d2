/**
 * A new rule's condition starts on the side that is bad news for what it watches, from the catalog's
 * and the KPIs' own `better` (no second list): every measure of the order summary and a programme's
 * ratio; and in the form's draft it follows the measure until the person chooses a condition.
 */
import { describe, expect, it } from "vitest";
import { metricsFor } from "@/lib/contract/catalog";
import { formatValue } from "@/lib/report/metrics/format";
import { kpisFor, measureFor } from "@/lib/report/metrics/kpis";
import { emptyRuleDraft, ruleBody, ruleDraft, withTarget } from "@/components/notifications/drafts";
import { ruleSentence } from "@/components/notifications/rule-words";
import type { CheckedRule, Programme } from "@/components/notifications/answers";
import { alertVocabulary } from "@/components/notifications/vocabulary";
import { badNewsCondition, defaultCondition, PROGRAMME_BETTER } from "./definition";

const betterOf = (m: string) => measureFor(m, "orders")?.better;
const kindFor = (measure: string) => defaultCondition({ kind: "measure", measure }, betterOf);
const everyMeasure = [...kpisFor("orders").map((k) => k.id), ...metricsFor("orders").map((m) => m.name)];

describe("the default condition of a new rule", () => {
  it("is above a value for what is better lower, below for what is better higher, and a change either way for a volume", () => {
    expect(badNewsCondition("lower")).toEqual({ kind: "above" });
    expect(badNewsCondition("higher")).toEqual({ kind: "below" });
    expect(badNewsCondition("neutral")).toEqual({ kind: "change", direction: "either" });
  });

  it("is above for every rate, count and amount of chargebacks, refunds and alerts, and for costs", () => {
    for (const m of ["cb_rate_count", "cb_rate_amount", "refund_rate", "alert_rate", "cb_count", "cb_amount", "cb_count_by_cb_date", "refund_count", "refund_amount_by_refund_date", "alert_count_by_alert_date", "alert", "cpa"]) {
      expect(kindFor(m), m).toEqual({ kind: "above" });
    }
  });

  it("is below for the approval rate, approvals and revenue", () => {
    for (const m of ["approval_rate", "approvals", "net_approvals", "initial_approved", "revenue", "net_revenue", "aov"]) {
      expect(kindFor(m), m).toEqual({ kind: "below" });
    }
  });

  it("is a change up or down for attempts, which are neither good nor bad", () => {
    for (const m of ["attempts", "initial_attempt", "rebills_attempted"]) expect(kindFor(m), m).toEqual({ kind: "change", direction: "either" });
  });

  it("is above for a programme's ratio, whose levels are reached at or above their thresholds", () => {
    expect(PROGRAMME_BETTER).toBe("lower");
    expect(defaultCondition({ kind: "programme", programme: "mastercard-ecp" }, betterOf)).toEqual({ kind: "above" });
  });

  it("follows the measure's own direction for every measure of the order summary, and each direction occurs", () => {
    const seen = new Set<string>();
    for (const m of everyMeasure) {
      const better = measureFor(m, "orders")!.better;
      expect(kindFor(m), m).toEqual(badNewsCondition(better));
      seen.add(kindFor(m).kind);
    }
    expect([...seen].sort()).toEqual(["above", "below", "change"]);
  });
});

describe("the rule form's draft", () => {
  const words = alertVocabulary();
  const programmes: Programme[] = [{ id: "mastercard-ecp", name: "Mastercard Excessive Chargeback Program" }];
  const ECP = "programme:mastercard-ecp";

  it("gives every measure the vocabulary offers its direction from the catalog and the KPIs", () => {
    expect(Object.keys(words.measures).sort()).toEqual([...everyMeasure].sort());
    for (const m of everyMeasure) expect(words.measures[m]?.better, m).toBe(betterOf(m));
  });

  it("starts a new rule on the approval rate, below a value", () => {
    const d = emptyRuleDraft(null, words);
    expect([d.target, d.condition, d.conditionChosen]).toEqual(["measure:approval_rate", "below", false]);
  });

  it("moves a condition nobody chose with the measure, keeping what was typed", () => {
    let d = { ...emptyRuleDraft(null, words), threshold: "1" };
    d = withTarget(d, ECP, words);
    expect([d.condition, d.threshold]).toEqual(["above", "1"]);
    d = withTarget(d, "measure:revenue", words);
    expect(d.condition).toBe("below");
    d = withTarget(d, "measure:attempts", words);
    expect([d.condition, d.direction, d.by]).toEqual(["change", "either", "percent"]);
    d = withTarget(d, "measure:cb_rate_count", words);
    expect(d.condition).toBe("above");
  });

  it("keeps a condition the person chose, whatever is watched next", () => {
    const chosen = { ...emptyRuleDraft(null, words), condition: "below" as const, conditionChosen: true };
    for (const target of [ECP, "measure:cb_rate_count", "measure:attempts"]) expect(withTarget(chosen, target, words).condition, target).toBe("below");
  });

  it("keeps an edited rule's own condition", () => {
    const rule = {
      name: "Low ECP",
      cooldownMinutes: 60,
      checked: {
        definition: { target: { kind: "programme", programme: "mastercard-ecp" }, condition: { kind: "below", value: 0.001 }, group_by: null, filters: {}, window: "mtd" },
        schedule: { every: "day", hour: 8 },
        recipients: { users: [], emails: [] },
      },
    } as unknown as CheckedRule;
    const d = ruleDraft(rule, words)!;
    expect([d.condition, d.conditionChosen]).toEqual(["below", true]);
    expect(withTarget(d, "measure:cb_rate_count", words).condition).toBe("below");
  });

  it("saves a programme ratio with 1 typed and the condition untouched as above 1%, and says so in one sentence", () => {
    const d = { ...withTarget({ ...emptyRuleDraft(null, words), name: "ECP" }, ECP, words), threshold: "1" };
    const r = ruleBody(d, words);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.body.definition).toEqual({ target: { kind: "programme", programme: "mastercard-ecp" }, condition: { kind: "above", value: 0.01 }, group_by: null, filters: {}, window: "mtd" });
    expect(ruleSentence(r.body.definition, programmes, words)).toBe(
      `Fires when the Mastercard Excessive Chargeback Program ratio is above ${formatValue(0.01, "percent")}, over the month to date, per MID and card brand.`,
    );
  });

  it("reads a measure into the sentence in lower case, an acronym as it is", () => {
    const def = (measure: string) => ({ target: { kind: "measure" as const, measure }, condition: { kind: "above" as const, value: 5 }, group_by: "card_brand", filters: {}, window: "last7" as const });
    expect(ruleSentence(def("revenue"), programmes, words)).toBe(`Fires when revenue is above ${formatValue(5, "currency")}, over the last 7 days, per Card brand.`);
    expect(ruleSentence(def("cpa"), programmes, words)).toMatch(/^Fires when CPA is above /);
  });
});
