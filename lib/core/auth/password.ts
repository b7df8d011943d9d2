/**
 * Password hashing with scrypt (memory-hard, in Node's crypto). Stored as
 * `scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64url), so the cost can be raised later: verification
 * reads the parameters from the stored string and `needsRehash` tells when to upgrade.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

export interface ScryptParams {
  /** log2 of N, the CPU/memory cost. */
  ln: number;
  r: number;
  p: number;
}

export const DEFAULT_SCRYPT: ScryptParams = { ln: 15, r: 8, p: 1 };

/**
 * The cost new hashes get and `needsRehash` compares with: DEFAULT_SCRYPT, unless the unit tests'
 * setup (test/setup.ts) lowers it for their process, where hundreds of hashes at the production
 * cost took minutes on two cores. Nothing in the application changes it.
 */
let current: ScryptParams = DEFAULT_SCRYPT;

export function setPasswordCost(params: ScryptParams): void {
  for (const k of ["ln", "r", "p"] as const) {
    if (!(Number.isInteger(params[k]) && params[k] >= LIMITS[k][0] && params[k] <= LIMITS[k][1])) throw new RangeError(`password cost: ${k} must be from ${LIMITS[k][0]} to ${LIMITS[k][1]}`);
  }
  current = params;
}
const KEY_BYTES = 32;
const SALT_BYTES = 16;
// Guards against a tampered or corrupt stored hash making us allocate gigabytes.
const LIMITS = { ln: [10, 20], r: [1, 32], p: [1, 16] } as const;

function derive(password: string, salt: Buffer, { ln, r, p }: ScryptParams): Promise<Buffer> {
  const N = 2 ** ln;
  // scrypt needs about 128·N·r bytes; Node's default cap (32 MiB) is exactly that at N=2^15, r=8.
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * 2 + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string, params: ScryptParams = current): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params);
  return `scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

interface Parsed {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

function parse(encoded: string): Parsed | null {
  const m = /^scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(encoded);
  if (!m) return null;
  const params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  for (const k of ["ln", "r", "p"] as const) {
    if (params[k] < LIMITS[k][0] || params[k] > LIMITS[k][1]) return null;
  }
  const key = Buffer.from(m[5]!, "base64url");
  if (key.length < 16) return null;
  return { params, salt: Buffer.from(m[4]!, "base64url"), key };
}

/** Constant-time comparison; false (never a throw) for a malformed stored hash. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parse(encoded);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.params);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}

export function needsRehash(encoded: string, params: ScryptParams = current): boolean {
  const parsed = parse(encoded);
  return !parsed || parsed.params.ln !== params.ln || parsed.params.r !== params.r || parsed.params.p !== params.p;
}

/** A strong random password for generated accounts: 144 bits, URL-safe, 24 characters. */
export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}

let dummy: Promise<string> | undefined;
/**
 * A hash of nothing anyone knows, verified against when the account doesn't exist, so that an
 * unknown e-mail costs the same time as a wrong password.
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(32).toString("base64url"));
  return dummy;
}
