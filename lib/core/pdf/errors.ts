/** Why a PDF was not made, each answered by the caller's route as its own status. */
export type PdfFailure = "busy" | "owner-busy" | "pending" | "refused" | "not-found" | "forbidden" | "timeout" | "no-browser" | "failed";

export class PdfError extends Error {
  constructor(
    readonly kind: PdfFailure,
    message: string,
    /** Seconds worth waiting before asking again, when asking again can help. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = "PdfError";
  }
}
