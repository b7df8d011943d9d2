// `npm run service:cli -- <command>`: operator commands over a service database file.
// Commands that write open the file themselves, so they refuse while the running service holds it.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { isCalendarDate, todayIn } from "@/lib/contract/dates";
import { CLIENT_SCOPES, createClient, isClientScope, listClients, setClientActive } from "./clients";
import { duckDbOptions, loadDuckDbConfig } from "./config";
import { Database, DatabaseBusyError } from "./db";
import { generate } from "./data/generator";
import { importDirectory } from "./data/importer";
import { migrate } from "./data/schema";
import { importRoutingEvidenceCase } from "./data/routing-evidence-case";
import { seedDemoRouting } from "./routing/demo";
import { foldJournal } from "./routing/journal";
import { formatRoutingShow, loadRoutingConfig, readRoutingConfig } from "./routing/loader";

const USAGE = `Usage: npm run service:cli -- <command> [options]

  generate --db PATH --days N --orders-per-day N --seed N [--end-date YYYY-MM-DD] [--routing-evidence-case]
      Replace the payment data with a deterministic synthetic dataset ending on --end-date (default today, UTC),
      and load the demo BIN routing configuration (docs/routing-demo.json). --routing-evidence-case adds
      two BINs where one MID is truly better and where MIDs differ only by noise (docs/routing.md).
  import --db PATH --dir DIR
      Load the CSV files of DIR (docs/import-format.md); all or nothing.
  create-client --db PATH --name NAME [--scope routing-admin]
      Create an API client; the last line printed is {"client_id": "...", "client_secret": "..."}.
      Every client may route and report; --scope routing-admin also lets it change the live routing
      configuration (docs/routing.md).
  deactivate-client --db PATH --client-id ID    /  activate-client --db PATH --client-id ID
  list-clients --db PATH
  routing load --db PATH --file FILE [--reason TEXT] [--author NAME]
      Replace the BIN routing configuration with FILE as a new version (docs/routing.md); checks
      everything first and changes nothing if any check fails, listing every problem.
  routing show --db PATH [--json]
      Print the routing configuration and each group's state (--json: in the format routing load reads).
`;

class UsageError extends Error {}

/** This process's peak resident memory so far, in MiB. */
const peakRssMiB = () => Math.round(process.resourceUsage().maxRSS / 1024);

function need(values: Record<string, string | string[] | boolean | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required`);
  return v;
}
function int(values: Record<string, string | string[] | boolean | undefined>, name: string, min: number): number {
  const raw = need(values, name);
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

async function withDb<T>(path: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await Database.open(path, { connections: 2, ...duckDbOptions(loadDuckDbConfig()) });
  try {
    await migrate(db);
    return await fn(db);
  } finally {
    db.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [first, ...afterFirst] = argv;
  // `routing <load|show>` is one command word with a sub-command.
  const command = first === "routing" && afterFirst[0] && !afterFirst[0].startsWith("-") ? `routing ${afterFirst[0]}` : first;
  const rest = command !== first ? afterFirst.slice(1) : afterFirst;
  const { values } = parseArgs({
    args: rest,
    options: {
      db: { type: "string" },
      days: { type: "string" },
      "orders-per-day": { type: "string" },
      seed: { type: "string" },
      "end-date": { type: "string" },
      "routing-evidence-case": { type: "boolean" },
      dir: { type: "string" },
      name: { type: "string" },
      "client-id": { type: "string" },
      file: { type: "string" },
      json: { type: "boolean" },
      scope: { type: "string", multiple: true },
      reason: { type: "string" },
      author: { type: "string" },
    },
    strict: true,
  });

  switch (command) {
    case "generate": {
      const endDate = values["end-date"] ?? todayIn("UTC");
      if (!isCalendarDate(endDate)) throw new UsageError(`--end-date must be a real date YYYY-MM-DD, got "${endDate}"`);
      const opts = {
        days: int(values, "days", 1),
        ordersPerDay: int(values, "orders-per-day", 1),
        seed: int(values, "seed", 0),
        endDate,
      };
      const summary = await withDb(need(values, "db"), (db) =>
        generate(db, { ...opts, onProgress: (msg) => console.error(msg) }).then(async (s) => {
          if (values["routing-evidence-case"]) await importRoutingEvidenceCase(db);
          // The demo routing configuration uses the generated BINs, banks and gateways (and the case's BINs).
          await seedDemoRouting(db);
          return s;
        }),
      );
      // The process's peak memory, so an operator (and bench:reports) can see what a size costs.
      console.log(JSON.stringify({ ...summary, peak_rss_mib: peakRssMiB() }));
      return 0;
    }
    case "import": {
      const result = await withDb(need(values, "db"), (db) => importDirectory(db, need(values, "dir")));
      for (const r of result.rejections) console.error(`${r.file}:${r.line}: ${r.reason}`);
      const more = result.rejected - result.rejections.length;
      if (more > 0) console.error(`… and ${more.toLocaleString("en-US")} more rejected rows (the first ${result.rejections.length.toLocaleString("en-US")} are listed)`);
      console.log(JSON.stringify({ ok: result.ok, inserted: result.inserted, skipped_duplicates: result.skippedDuplicates, rejected: result.rejected, peak_rss_mib: peakRssMiB() }));
      return result.ok ? 0 : 1;
    }
    case "create-client": {
      const name = need(values, "name");
      const scopes = (values.scope ?? []).flatMap((s) => s.split(",")).map((s) => s.trim()).filter((s) => s !== "");
      const unknown = scopes.filter((s) => !isClientScope(s));
      if (unknown.length > 0) throw new UsageError(`--scope must be one of ${CLIENT_SCOPES.join(", ")}, got "${unknown.join(", ")}"`);
      const created = await withDb(need(values, "db"), (db) => createClient(db, name, scopes.filter(isClientScope)));
      console.log(`Created API client "${name}". The secret is shown only this once; store it now.`);
      console.log(JSON.stringify(created));
      return 0;
    }
    case "deactivate-client":
    case "activate-client": {
      const id = need(values, "client-id");
      const found = await withDb(need(values, "db"), (db) => setClientActive(db, id, command === "activate-client"));
      if (!found) {
        console.error(`No API client with id ${id}`);
        return 1;
      }
      console.log(`${command === "activate-client" ? "Activated" : "Deactivated"} ${id}`);
      return 0;
    }
    case "list-clients": {
      const rows = await withDb(need(values, "db"), (db) => listClients(db));
      for (const r of rows) console.log(JSON.stringify(r));
      return 0;
    }
    case "routing load": {
      const file = need(values, "file");
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (e) {
        console.error(`Cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
        return 1;
      }
      const result = await withDb(need(values, "db"), (db) =>
        loadRoutingConfig(db, text, { ...(values.reason ? { reason: values.reason } : {}), ...(values.author ? { author: values.author } : {}) }),
      );
      if (!result.ok) {
        console.error(`${file}: ${result.problems.length} problem${result.problems.length === 1 ? "" : "s"}; nothing was changed`);
        for (const p of result.problems) console.error(`  ${p.path}: ${p.message}`);
        return 1;
      }
      console.log(
        `Loaded ${result.groups} groups and ${result.rules} rules from ${file} as version ${result.version}.` +
          (result.kept.length ? ` Rotation kept for groups ${result.kept.join(", ")}.` : "") +
          (result.restarted.length ? ` Rotation restarted (member list or method changed) for groups ${result.restarted.join(", ")}.` : ""),
      );
      return 0;
    }
    case "routing show": {
      const out = await withDb(need(values, "db"), async (db) => {
        await foldJournal(db);
        return values.json ? `${JSON.stringify((await readRoutingConfig(db)).config, null, 2)}\n` : formatRoutingShow(db);
      });
      process.stdout.write(out);
      return 0;
    }
    default:
      throw new UsageError(command ? `Unknown command "${command}"` : "No command given");
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof UsageError || (e instanceof TypeError && "code" in e && String(e.code).startsWith("ERR_PARSE_ARGS"))) {
      console.error(`${e.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (e instanceof DatabaseBusyError) {
      console.error(e.message);
      process.exit(3);
    }
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  },
);
