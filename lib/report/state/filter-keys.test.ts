// A filter named like an object's own machinery is refused by name, as any unknown dimension is,
// never dropped on the way (which would run a report the link did not ask for).
import { describe, expect, it } from "vitest";
import { parseCohort } from "./cohort";
import { parseExplore } from "./explore";
import { parseDashboard } from "./dashboard";

const today = "2026-11-27";

describe("filter keys that are object machinery", () => {
  for (const key of ["__proto__", "constructor", "prototype", "hasOwnProperty"]) {
    it(`refuses f.${key} by name on every report page`, () => {
      for (const problems of [
        parseExplore(`range=last7&m=attempts&f.${key}=x`, today).problems,
        parseCohort(`range=last30&f.${key}=x`, today).problems,
        parseDashboard(`range=last30&f.${key}=x`, today).problems,
      ]) {
        expect(problems.map((p) => p.param)).toContain(`f.${key}`);
        expect(problems.find((p) => p.param === `f.${key}`)?.message).toMatch(new RegExp(`${key.replace(/_/g, "_")}.*not a dimension`));
      }
    });
  }
});
