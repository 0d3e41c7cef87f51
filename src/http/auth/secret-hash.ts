/**
 * Secrets (passwords, API key secrets) as salted scrypt hashes, written
 * `scrypt:ln=15,r=8,p=1:<salt>:<hash>` (base64url): a hash names its own cost, and the text holds
 * no `$`, space or quote, so it can sit in a shell variable or a compose file as it is.
 *
 * @example
 * const hash = await hashSecret('s3cret-password');
 * await verifySecret('s3cret-password', parseSecretHash(hash)); // true
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export interface ScryptCost {
  /** log2 of scrypt's N (CPU and memory cost). */
  ln: number;
  /** Block size. */
  r: number;
  /** Parallelization. */
  p: number;
}

export interface SecretHash {
  cost: ScryptCost;
  salt: Buffer;
  hash: Buffer;
}

/** N = 2^15, r = 8: 32 MiB and 0.1 to 0.3 s per hash on a small machine, paid once per credential (authenticator.ts remembers verified ones). */
export const DEFAULT_COST: ScryptCost = { ln: 15, r: 8, p: 1 };
const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** Refused above this: a hash from the file must not make a verification take a gigabyte. */
const MAX_MEMORY = 1024 ** 3;

export async function hashSecret(secret: string, cost: ScryptCost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(secret, salt, cost, HASH_BYTES);
  return `scrypt:ln=${cost.ln},r=${cost.r},p=${cost.p}:${salt.toString('base64url')}:${hash.toString('base64url')}`;
}

/** Whether `secret` is the one `stored` was made from; compares in constant time. */
export async function verifySecret(secret: string, stored: SecretHash): Promise<boolean> {
  const hash = await derive(secret, stored.salt, stored.cost, stored.hash.length);
  return timingSafeEqual(hash, stored.hash);
}

/** A hash as {@link hashSecret} writes it; throws an Error saying what is wrong. */
export function parseSecretHash(text: string): SecretHash {
  const match = /^scrypt:ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,2}):([A-Za-z0-9_-]{16,}):([A-Za-z0-9_-]{16,})$/.exec(text);
  if (!match) throw new Error(`expected a hash written as scrypt:ln=<n>,r=<n>,p=<n>:<salt>:<hash>, got [${text}]`);
  const cost = { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  if (cost.ln < 1 || cost.r < 1 || cost.p < 1 || memory(cost) > MAX_MEMORY) throw new Error(`scrypt cost out of range in [${text}]`);
  return { cost, salt: Buffer.from(match[4], 'base64url'), hash: Buffer.from(match[5], 'base64url') };
}

function derive(secret: string, salt: Buffer, cost: ScryptCost, bytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, bytes, { N: 2 ** cost.ln, r: cost.r, p: cost.p, maxmem: 2 * memory(cost) }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** scrypt's working memory in bytes: 128 · N · r. */
const memory = (cost: ScryptCost) => 128 * 2 ** cost.ln * cost.r;
