"use client";
import { useState } from "react";
import { lazyPart } from "@/components/ui/lazy-part";
import { Tabs } from "@/components/ui/tabs";
import { SingleLookup } from "./single-lookup";

// The bulk tab's code is loaded when the tab is first opened (its panel is hidden until then), with
// react-query (its evidence query), which the page's first load does without.
const BulkLookup = lazyPart(
  () => import("./bulk-lookup").then((m) => m.BulkLookupWithClient),
  <div className="min-h-96 rounded-lg border border-slate-200 bg-white p-4 text-sm text-slate-700">Loading the bulk lookup…</div>,
);

/** BIN lookup: one BIN with every detail, or up to 100 in a table. */
export function BinLookup({ timeZone }: { timeZone: string }) {
  const [tab, setTab] = useState("single");
  // Once opened, the bulk tab stays mounted, so its list and results survive switching tabs.
  const [bulkOpened, setBulkOpened] = useState(false);
  const select = (id: string) => {
    if (id === "bulk") setBulkOpened(true);
    setTab(id);
  };
  return (
    <Tabs
      label="Lookup mode"
      value={tab}
      onChange={select}
      tabs={[
        { id: "single", label: "One BIN", content: <SingleLookup timeZone={timeZone} /> },
        { id: "bulk", label: "Bulk (up to 100)", content: bulkOpened ? <BulkLookup timeZone={timeZone} /> : null },
      ]}
    />
  );
}
