"use client";
/** Saves the report on screen (its page and URL state, the whole definition) under a name. */
import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/button";

export function SaveReportButton({ page, disabled }: { page: "explore" | "cohorts"; disabled?: boolean }) {
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const save = async () => {
    const name = window.prompt("Name of the saved report");
    if (!name || !name.trim()) return;
    const res = await fetch("/api/saved-reports", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: name.trim(), page, params: window.location.search.replace(/^\?/, "") }),
    });
    const body = (await res.json()) as { message?: string };
    setMessage(res.ok ? { ok: true, text: "Saved. Find it under Saved reports." } : { ok: false, text: body.message ?? "Could not save the report" });
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
