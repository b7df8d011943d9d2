import { describe, expect, it } from "vitest";
import { attachedWords } from "./issue-attachments";

const file = (filename: string) => ({ filename, content: "", contentType: "" });

describe("attachedWords", () => {
  it("says how many tables the files hold: one report's table, or a dashboard's several, a sheet each in the workbook", () => {
    expect(attachedWords([file("r.csv"), file("r.xlsx")], 1)).toBe("The table is attached as CSV and as an Excel workbook.");
    expect(attachedWords([file("r.xlsx")], 1)).toBe("The table is attached as an Excel workbook.");
    expect(attachedWords([file("d_a.csv"), file("d_b.csv"), file("d_c.csv"), file("d.xlsx")], 3)).toBe(
      "The 3 tables are attached as CSV files and as an Excel workbook, a sheet each.",
    );
    // A workbook alone still says it holds several tables.
    expect(attachedWords([file("d.xlsx")], 2)).toBe("The 2 tables are attached as an Excel workbook, a sheet each.");
    expect(attachedWords([file("d_a.csv"), file("d_b.csv")], 2)).toBe("The 2 tables are attached as CSV files.");
    // A PDF is not a table file; no table, nothing to say.
    expect(attachedWords([file("r.pdf")], 1)).toBe("");
    expect(attachedWords([], 0)).toBe("");
  });
});
