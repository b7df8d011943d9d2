export * from "./cohort";
export * from "./encoding";
export * from "./explore";
export * from "./filters";
export * from "./range";
export * from "./request";
export * from "./url-check";
