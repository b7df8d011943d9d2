// `node --import tsx service/testing/monitor-breach-cli.ts --db PATH --month YYYY-MM --out DIR`:
// writes DIR/chargebacks.csv, the chargebacks that make one Mastercard gateway breach Mastercard's
// Excessive Chargeback Program in the month (service/testing/monitor-breach.ts), for the e2e run to
// load with the service CLI's `import`. Only reads the database; the last line printed is the plan
// as JSON (without the CSV text).
import { parseArgs } from "node:util";
import { Database } from "../db";
import { planChargebackBreach, writeBreachDir } from "./monitor-breach";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { db: { type: "string" }, month: { type: "string" }, out: { type: "string" } },
  strict: true,
});
if (!values.db || !values.month || !values.out) {
  console.error("Usage: monitor-breach-cli.ts --db PATH --month YYYY-MM --out DIR");
  process.exit(2);
}
const db = await Database.open(values.db, { connections: 1 });
try {
  const plan = await planChargebackBreach(db, { month: values.month });
  writeBreachDir(values.out, plan);
  const { csv: _csv, ...summary } = plan;
  console.log(JSON.stringify(summary));
} finally {
  db.close();
}
