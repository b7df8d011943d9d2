import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * A job handle: one owner's hold on a job, `<job id>.<owner>.<tag>`. Two owners asking the same
 * report share the job (its upstream work) but each gets their own handle, signed so that knowing
 * another's handle gives nobody a handle of their own to that job.
 */
export class JobHandles {
  private readonly key: Buffer;
  constructor(key: string) {
    this.key = createHmac("sha256", key).update("report-job-handle-v1").digest();
  }

  private tag(jobId: string, owner: string): Buffer {
    return createHmac("sha256", this.key).update(jobId).update("\0").update(owner).digest().subarray(0, 16);
  }

  of(jobId: string, owner: string): string {
    return `${jobId}.${Buffer.from(owner, "utf8").toString("base64url")}.${this.tag(jobId, owner).toString("base64url")}`;
  }

  /** The job and owner a handle names, or null when it is not one this key signed. */
  parse(handle: string): { jobId: string; owner: string } | null {
    const parts = handle.split(".");
    if (parts.length !== 3) return null;
    const [jobId, ownerPart, tagPart] = parts as [string, string, string];
    const owner = Buffer.from(ownerPart, "base64url").toString("utf8");
    const given = Buffer.from(tagPart, "base64url");
    const expected = this.tag(jobId, owner);
    return given.length === expected.length && timingSafeEqual(given, expected) ? { jobId, owner } : null;
  }
}
