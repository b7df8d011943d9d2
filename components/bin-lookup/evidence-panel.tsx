"use client";
/**
 * The single lookup's last 90 days, loaded with the first lookup (lazyPart): it brings
 * react-query, which the BIN lookup page's first load does without, with the browser's one client.
 */
import { Providers } from "@/components/providers";
import { SingleEvidence, useBinEvidence } from "./evidence";

interface Props {
  bin: string;
  /** False while the lookup itself is still running or failed: fetched already, not shown yet. */
  show: boolean;
  timeZone: string;
  dimmed: boolean;
}

function Panel({ bin, show, timeZone, dimmed }: Props) {
  const evidence = useBinEvidence([bin]);
  return show ? <SingleEvidence bin={bin} query={evidence} timeZone={timeZone} dimmed={dimmed} /> : null;
}

export default function EvidencePanel(props: Props) {
  return (
    <Providers>
      <Panel {...props} />
    </Providers>
  );
}
