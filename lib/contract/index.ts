export * from "./catalog";
export * from "./dates";
export * from "./schemas";
