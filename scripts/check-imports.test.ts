// The import checks catch what they promise: a deliberate loop of files (type-only imports count)
// and a deliberate loop of feature folders fail, read from real files by the same resolution the
// lint uses, while a folder that only imports downwards passes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkGraph, featureFolder, importEdges } from "./check-imports";

const root = mkdtempSync(path.join(tmpdir(), "check-imports-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

describe("check-imports", () => {
  it("names a file's feature folder", () => {
    expect(featureFolder("lib/features/alerts/run.ts")).toBe("lib/features/alerts");
    expect(featureFolder("lib/core/store/sql.ts")).toBe("lib/core/store");
    expect(featureFolder("lib/report/route.ts")).toBe("lib/report/route");
    expect(featureFolder("lib/contract/catalog.ts")).toBe("lib/contract");
    expect(featureFolder("lib/csv.ts")).toBe("lib/csv");
    expect(featureFolder("lib/startup/background.ts")).toBe("lib/startup");
    expect(featureFolder("app/api/notifications/alerts/[id]/route.ts")).toBe("app/api/notifications");
    expect(featureFolder("components/ui/dialog.tsx")).toBe("components/ui");
  });

  it("fails on files that import each other and on feature folders that do, read from disk", async () => {
    write("tsconfig.json", JSON.stringify({ compilerOptions: { strict: true, baseUrl: ".", paths: { "@/*": ["./*"] } } }));
    // Two files of one folder, one importing only the other's type.
    write("lib/pair/one.ts", 'import type { Two } from "./two";\nexport const one = (t: Two) => t.n;\n');
    write("lib/pair/two.ts", 'import { one } from "./one";\nexport interface Two { n: number }\nexport const two = one({ n: 2 });\n');
    // Three files, no file loop, but lib/up → lib/down → lib/up as folders.
    write("lib/up/a.ts", 'import { b } from "@/lib/down/b";\nexport const a = b + 1;\n');
    write("lib/down/b.ts", 'import { c } from "../up/c";\nexport const b = c + 1;\n');
    write("lib/up/c.ts", "export const c = 1;\n");
    // A clean folder beside them.
    write("lib/clean/x.ts", 'import { c } from "@/lib/up/c";\nexport const x = c;\n');

    const edges = await importEdges(root, ["lib"]);
    expect(edges).toContainEqual(["lib/pair/one.ts", "lib/pair/two.ts"]);
    expect(edges).toContainEqual(["lib/down/b.ts", "lib/up/c.ts"]);

    expect(checkGraph(edges)).toEqual([
      "files import each other: lib/pair/one.ts ↔ lib/pair/two.ts",
      "feature folders import each other: lib/down ↔ lib/up",
    ]);
  });

  it("fails on a folder loop around three folders, and passes imports that only run downwards", () => {
    const around = [
      ["lib/a/x.ts", "lib/b/y.ts"],
      ["lib/b/y.ts", "lib/c/z.ts"],
      ["lib/c/z.ts", "lib/a/w.ts"],
    ] as [string, string][];
    expect(checkGraph(around)).toEqual(["feature folders import each other: lib/a ↔ lib/b ↔ lib/c"]);
    expect(checkGraph(around.slice(0, 2))).toEqual([]);
  });

  it("fails when a kind of lib/ imports a kind above it, and passes imports downwards", () => {
    expect(
      checkGraph([
        ["lib/core/upstream/day-store.ts", "lib/report/metrics/maturity.ts"],
        ["lib/report/table/csv.ts", "lib/features/dashboards/run.ts"],
        ["lib/contract/catalog.ts", "lib/core/env/env.ts"],
        ["lib/features/notifications/slots.ts", "lib/startup/background.ts"],
      ]),
    ).toEqual([
      "lib/contract imports lib/core: lib/contract/catalog.ts → lib/core/env/env.ts",
      "lib/core imports lib/report: lib/core/upstream/day-store.ts → lib/report/metrics/maturity.ts",
      "lib/features imports lib/startup: lib/features/notifications/slots.ts → lib/startup/background.ts",
      "lib/report imports lib/features: lib/report/table/csv.ts → lib/features/dashboards/run.ts",
    ]);
    expect(
      checkGraph([
        ["lib/features/dashboards/run.ts", "lib/report/metrics/maturity.ts"],
        ["lib/features/dashboards/run.ts", "lib/features/sharing/links.ts"],
        ["lib/report/table/csv.ts", "lib/core/env/env.ts"],
        ["lib/core/env/env.ts", "lib/contract/catalog.ts"],
        ["components/x/y.tsx", "lib/features/dashboards/run.ts"],
        ["lib/startup/background.ts", "lib/features/warming/warmer.ts"],
      ]),
    ).toEqual([]);
  });
});
