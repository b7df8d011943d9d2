/**
 * "Download PDF": the report or dashboard as its PDF prints it (made on the server, lib/features/sharing/pdf.ts).
 * A plain link, so the browser shows the download's progress while the server makes it.
 */
export function PdfDownloadLink({ href, title }: { href: string; title?: string }) {
  return (
    <a
      href={href}
      download
      title={title}
      className="inline-flex min-h-8 items-center justify-center rounded-md border border-slate-300 bg-white px-2.5 text-sm font-medium whitespace-nowrap text-slate-900 hover:bg-slate-100 print:hidden"
    >
      Download PDF
    </a>
  );
}
