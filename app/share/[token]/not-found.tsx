/** A share link that names no report (mistyped, cut short, or rotated): answered with HTTP 404. */
export default function ShareNotFound() {
  return (
    <main className="mx-auto max-w-md p-6">
      <h1 className="text-xl font-semibold">This link does not work</h1>
      <p className="mt-2 text-sm text-slate-700">
        Check that the whole link was copied (or that the password was right), or ask whoever sent it for a new one.
      </p>
    </main>
  );
}
