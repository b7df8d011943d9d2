// The lint step enforces the boundary between the two systems: shown to fail on wrong imports and to
// pass on the allowed ones, with the project's own ESLint configuration.
import { join } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const eslint = new ESLint({ cwd: root });

async function restricted(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("the import boundary", () => {
  it("fails when the service imports dashboard code, by alias or relative path", async () => {
    expect(await restricted("service/reports/x.ts", 'import { getStore } from "@/lib/core/store";\nexport const s = getStore;\n')).toHaveLength(1);
    expect(await restricted("service/reports/x.ts", 'import { ReportView } from "../../components/sharing/report-view";\nexport const v = ReportView;\n')).toHaveLength(1);
  });

  it("fails when the dashboard imports the service's code", async () => {
    expect(await restricted("lib/core/upstream/x.ts", 'import { Database } from "@/service/db";\nexport const d = Database;\n')).toHaveLength(1);
    expect(await restricted("components/x.tsx", 'import { generate } from "../service/data/generator";\nexport const g = generate;\n')).toHaveLength(1);
  });

  it("fails when the store imports sign-in code, which builds on it", async () => {
    expect(await restricted("lib/core/store/x.ts", 'import { hashPassword } from "../auth/password";\nexport const h = hashPassword;\n')).toHaveLength(1);
    expect(await restricted("lib/core/store/x.ts", 'import { requireUser } from "@/lib/core/auth/session";\nexport const r = requireUser;\n')).toHaveLength(1);
    expect(await restricted("lib/core/store/x.ts", 'import { Database } from "@/service/db";\nexport const d = Database;\n')).toHaveLength(1);
    expect(await restricted("lib/core/store/x.ts", 'import { isUniqueViolation } from "./sql";\nexport const u = isUniqueViolation;\n')).toEqual([]);
    expect(await restricted("lib/core/auth/x.ts", 'import { isUniqueViolation } from "../store/sql";\nexport const u = isUniqueViolation;\n')).toEqual([]);
  });

  it("passes the contract both ways, and test files that start a real service", async () => {
    expect(await restricted("service/reports/x.ts", 'import { LIMITS } from "@/lib/contract/catalog";\nexport const l = LIMITS;\n')).toEqual([]);
    expect(await restricted("service/reports/x.ts", 'import { LIMITS } from "../../lib/contract/catalog";\nexport const l = LIMITS;\n')).toEqual([]);
    expect(await restricted("lib/core/upstream/x.test.ts", 'import { startTestService } from "@/service/testing/harness";\nexport const s = startTestService;\n')).toEqual([]);
    expect(await restricted("lib/features/sharing/x.ts", 'import { resolveShare } from "./service";\nexport const r = resolveShare;\n')).toEqual([]);
  });
});
