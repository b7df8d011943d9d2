export * from "./format";
export * from "./kpis";
export * from "./table";
