"use client";
/**
 * One BIN lookup at a time, as the single form shows it: idle, pending, answered or failed, with the
 * request it is about; a newer lookup (or a reset) makes an older one's answer irrelevant. A few
 * lines of state rather than react-query's useMutation, which would add ≈ 11 KB gzipped to the page's
 * first load; the fields are named as useMutation names them.
 */
import { useRef, useState } from "react";
import type { LookupMode } from "@/lib/features/bin-lookup/lookup";
import type { BinAnswer } from "@/lib/features/bin-lookup/upstream";
import { routeBin } from "@/lib/features/bin-lookup/route-bin";

/**
 * The contract's routing request schema, which checks the form before anything is sent. Loaded (with
 * zod, about 30 KB gzipped) when the form is first used rather than with the page.
 */
export const loadRoutingSchema = () => import("@/lib/contract/bin-routing").then((m) => m.BinRoutingRequestSchema);

export interface LookupVariables {
  body: Record<string, string>;
  mode: LookupMode;
}

type State =
  | { isPending: false; isSuccess: false; isError: false; variables: undefined; data: undefined; error: null }
  | { isPending: true; isSuccess: false; isError: false; variables: LookupVariables; data: undefined; error: null }
  | { isPending: false; isSuccess: true; isError: false; variables: LookupVariables; data: BinAnswer; error: null }
  | { isPending: false; isSuccess: false; isError: true; variables: LookupVariables; data: undefined; error: Error };

const IDLE: State = { isPending: false, isSuccess: false, isError: false, variables: undefined, data: undefined, error: null };

export function useLookup(): State & { mutate: (v: LookupVariables) => void; reset: () => void } {
  const [state, setState] = useState<State>(IDLE);
  /** The latest lookup's number: only its answer is shown. */
  const latest = useRef(0);
  const mutate = (variables: LookupVariables) => {
    const n = ++latest.current;
    setState({ isPending: true, isSuccess: false, isError: false, variables, data: undefined, error: null });
    void (async () => {
      try {
        const data = await routeBin((await loadRoutingSchema()).parse(variables.body), variables.mode);
        if (latest.current === n) setState({ isPending: false, isSuccess: true, isError: false, variables, data, error: null });
      } catch (e) {
        const error = e instanceof Error ? e : new Error(String(e));
        if (latest.current === n) setState({ isPending: false, isSuccess: false, isError: true, variables, data: undefined, error });
      }
    })();
  };
  const reset = () => {
    latest.current++;
    setState(IDLE);
  };
  return { ...state, mutate, reset };
}
