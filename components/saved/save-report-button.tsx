"use client";
/** Saves the report on screen (its page and URL state, the whole definition) under a name. */
import { apiFetch } from "@/lib/report-client/fetch";
import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import type { SavedPage } from "@/lib/store/saved-reports";

export function SaveReportButton({ page, disabled }: { page: SavedPage; disabled?: boolean }) {
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const save = async () => {
    const name = window.prompt("Name of the saved report");
    if (!name || !name.trim()) return;
    try {
      await apiFetch("/api/saved-reports", { method: "POST", body: { name: name.trim(), page, params: window.location.search.replace(/^\?/, "") } });
      setMessage({ ok: true, text: "Saved. Find it under Saved reports." });
    } catch (e) {
      setMessage({ ok: false, text: e instanceof Error ? e.message : "Could not save the report" });
    }
  };
  return (
    <span className="inline-flex items-center gap-2">
      <Button onClick={() => void save()} disabled={disabled}>
        Save report
      </Button>
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
