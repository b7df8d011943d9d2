/**
 * What the demo mail sink writes for each message it keeps (`<dir>-view/<timestamp>-<n>.json`) and
 * the admins' viewer reads: the message as a mail program shows it. The folder of messages holds
 * only the .eml files, as a mail program or a person looking there expects. Shared by the sink (lib/core/mail/sink.ts,
 * run by the launcher) and the viewer (lib/core/mail/sink-viewer.ts), so both agree on one shape.
 */
import { z } from "zod";

export const SinkSidecar = z.object({
  envelope: z.object({ from: z.string(), to: z.array(z.string()) }),
  subject: z.string(),
  /** ISO 8601: the message's Date header, or when the sink took it. */
  date: z.string(),
  text: z.string(),
  html: z.string().nullable(),
  attachments: z.array(z.object({ filename: z.string(), contentType: z.string(), bytes: z.number() })),
  /** The .eml's size. */
  bytes: z.number(),
});
export type SinkSidecar = z.infer<typeof SinkSidecar>;

/** Where the viewer's copies of the messages in `dir` are kept. */
export const viewFolder = (dir: string) => `${dir.replace(/[\\/]+$/, "")}-view`;

/** A kept message's id: its file name without the extension, exactly as the sink names it. */
export const SINK_MESSAGE_ID = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-\d{1,9}$/;
