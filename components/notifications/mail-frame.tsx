"use client";
/**
 * An e-mail's HTML body shown inside the page without running it: a sandboxed frame (no scripts, no
 * forms, no navigation of the page) whose own policy loads nothing from anywhere, so a message
 * cannot call out (no tracking pixels, no remote styles) or act for the person reading it.
 */

/** The frame's policy: inline styles only; images only as data: URLs; nothing fetched. */
const FRAME_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** The HTML as the frame's document, under its own policy. */
export function framedDocument(html: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${FRAME_POLICY}"><style>body{font-family:system-ui,sans-serif;font-size:14px;color:#0f172a;margin:12px}</style></head><body>${html}</body></html>`;
}

export function MailFrame({ html, title }: { html: string; title: string }) {
  return <iframe title={title} sandbox="" referrerPolicy="no-referrer" srcDoc={framedDocument(html)} className="h-72 w-full rounded border border-slate-300 bg-white" />;
}
