/**
 * One structured JSON line per request. Callers pass only whitelisted fields: never a secret, a
 * token, a header value or a request body.
 */
export interface RequestLogLine {
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  client_id: string | null;
  error?: string;
}

export interface Logger {
  request(line: RequestLogLine): void;
  info(msg: string, fields?: Record<string, string | number | boolean | null>): void;
  error(msg: string, fields?: Record<string, string | number | boolean | null>): void;
}

export function jsonLogger(write: (s: string) => void = (s) => process.stdout.write(s)): Logger {
  const emit = (level: string, obj: object) => write(`${JSON.stringify({ ts: new Date().toISOString(), level, ...obj })}\n`);
  return {
    request: (line) => emit(line.status >= 500 ? "error" : "info", { msg: "request", ...line }),
    info: (msg, fields) => emit("info", { msg, ...fields }),
    error: (msg, fields) => emit("error", { msg, ...fields }),
  };
}

export const silentLogger: Logger = { request: () => {}, info: () => {}, error: () => {} };
