"use client";
/**
 * The alert rule and scheduled report forms, loaded when one is opened: the page shows its lists
 * first, and a form (with its fields, checks and filter rows) is asked for when someone edits.
 */
import { lazy, Suspense, type ComponentProps } from "react";

const LazyAlertRuleForm = lazy(() => import("./alert-rule-form").then((m) => ({ default: m.AlertRuleForm })));
const LazySubscriptionForm = lazy(() => import("./subscription-form").then((m) => ({ default: m.SubscriptionForm })));

const loading = <p className="py-4 text-sm text-slate-700">Loading the form…</p>;

export function AlertRuleForm(props: ComponentProps<typeof LazyAlertRuleForm>) {
  return (
    <Suspense fallback={loading}>
      <LazyAlertRuleForm {...props} />
    </Suspense>
  );
}

export function SubscriptionForm(props: ComponentProps<typeof LazySubscriptionForm>) {
  return (
    <Suspense fallback={loading}>
      <LazySubscriptionForm {...props} />
    </Suspense>
  );
}
