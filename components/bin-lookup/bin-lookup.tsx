"use client";
import { useState } from "react";
import { Tabs } from "@/components/ui/tabs";
import { BulkLookup } from "./bulk-lookup";
import { SingleLookup } from "./single-lookup";

/** BIN lookup: one BIN with every detail, or up to 100 in a table. */
export function BinLookup({ timeZone }: { timeZone: string }) {
  const [tab, setTab] = useState("single");
  return (
    <Tabs
      label="Lookup mode"
      value={tab}
      onChange={setTab}
      tabs={[
        { id: "single", label: "One BIN", content: <SingleLookup timeZone={timeZone} /> },
        { id: "bulk", label: "Bulk (up to 100)", content: <BulkLookup timeZone={timeZone} /> },
      ]}
    />
  );
}
