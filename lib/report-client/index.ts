export * from "./api";
export * from "./queries";
export * from "./status";
