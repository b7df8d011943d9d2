/**
 * Saving the dashboard the URL holds: over the saved one ("Save", when it changed since), or as a new
 * one named in a dialog, which then opens on its own page.
 */
import { useState } from "react";
import { apiFetch } from "@/lib/core/api-client/fetch";

export function useDashboardSaving(saved: { id: string; params: string } | null, params: string | null, navigate: (href: string) => void, refresh: () => void) {
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const dirty = saved !== null && params !== null && params !== saved.params;
  const save = async () => {
    if (!saved || !params) return;
    try {
      await apiFetch(`/api/saved-reports/${saved.id}`, { method: "PATCH", body: { params } });
      setMessage({ ok: true, text: "Saved." });
      refresh();
    } catch (e) {
      setMessage({ ok: false, text: e instanceof Error ? e.message : "Could not save the dashboard" });
    }
  };
  // Named in a dialog, which shows a failure itself (this throws) and warns of a name already used.
  const [naming, setNaming] = useState(false);
  const saveAs = async (name: string) => {
    if (!params) return;
    const { report } = await apiFetch<{ report: { id: string } }>("/api/saved-reports", { method: "POST", body: { name, page: "dashboard", params } });
    setNaming(false);
    navigate(`/dashboards/${report.id}?${params}`);
  };
  return { message, dirty, save, naming, setNaming, saveAs };
}
