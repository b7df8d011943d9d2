"use client";
/**
 * A MID's name in Routing, as every other surface gives it ("Wells 02 (#2)", lib/report/mid-name.ts): the
 * aliases are those the dashboard has already seen in report answers (the filter suggestions' list,
 * no upstream call), so a MID no answer has named yet reads "MID #2" until one does.
 */
import { useCallback, useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { midName } from "@/lib/report/mid-name";
import { fetchKnownValues } from "@/components/report/filter-known";

export function useMidName(): (id: number | string) => string {
  // The same query key as the filter editor's suggestions: one fetch serves both.
  const q = useQuery({ queryKey: ["suggestions", "gateway_id"], queryFn: ({ signal }) => fetchKnownValues("gateway_id", signal), staleTime: 30_000 });
  const names = useMemo(() => new Map((q.data?.values ?? []).flatMap((v) => (v.label ? [[String(v.value), v.label] as const] : []))), [q.data]);
  return useCallback((id: number | string) => midName(id, names.get(String(id))), [names]);
}
