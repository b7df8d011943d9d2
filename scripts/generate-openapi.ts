// Writes docs/openapi.json from lib/contract. `npm run openapi`; a unit test fails when it is stale.
import { writeFileSync } from "node:fs";
import { renderOpenApiDocument } from "../lib/contract/openapi";

const target = new URL("../docs/openapi.json", import.meta.url);
writeFileSync(target, renderOpenApiDocument());
console.log(`wrote ${target.pathname}`);
