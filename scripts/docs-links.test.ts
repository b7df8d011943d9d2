// The README and docs link only to files a clone of this repository contains.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const files = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

describe("documentation links", () => {
  it.each(files)("%s links only to files in the repository", (file) => {
    const text = readFileSync(join(root, file), "utf8");
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^(https?:|mailto:|#)/.test(t));
    for (const t of targets) {
      const path = normalize(join(dirname(join(root, file)), t.split("#")[0]!));
      expect(path.startsWith(root), `${file} → ${t} leaves the repository`).toBe(true);
      expect(existsSync(path), `${file} → ${t}`).toBe(true);
    }
  });
});
