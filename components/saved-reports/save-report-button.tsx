"use client";
/** Saves the report on screen (its page and URL state, the whole definition) under a name asked in a dialog. */
import { apiFetch } from "@/lib/core/api-client/fetch";
import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import type { SavedPage } from "@/lib/features/saved-reports/model";
import { NameDialog } from "./name-dialog";

export function SaveReportButton({ page, disabled }: { page: SavedPage; disabled?: boolean }) {
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [naming, setNaming] = useState(false);
  // A failure stays in the dialog (it throws there), with the name still typed.
  const save = async (name: string) => {
    await apiFetch("/api/saved-reports", { method: "POST", body: { name, page, params: window.location.search.replace(/^\?/, "") } });
    setNaming(false);
    setMessage({ ok: true, text: "Saved. Find it under Saved reports." });
  };
  return (
    <span className="inline-flex items-center gap-2">
      <Button
        onClick={() => {
          setMessage(null);
          setNaming(true);
        }}
        disabled={disabled}
      >
        Save report
      </Button>
      <NameDialog open={naming} title={page === "monitor" ? "Save this monitor view" : "Save this report"} page={page} onCancel={() => setNaming(false)} onSave={save} />
      {message ? (
        <span role={message.ok ? "status" : "alert"} className={`text-sm ${message.ok ? "text-slate-700" : "text-red-800"}`}>
          {message.text}{" "}
          {message.ok ? (
            <Link href="/reports" className="text-blue-800 underline">
              Open
            </Link>
          ) : null}
        </span>
      ) : null}
    </span>
  );
}
