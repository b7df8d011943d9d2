export * from "./catalog";
export * from "./dates";
export * from "./schemas";
export * from "./order";
export * from "./money";
export * from "./operations";
export * from "./operation-schemas";
