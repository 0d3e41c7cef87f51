/**
 * Who an `Authorization` header names, checked against the configured {@link Credentials}.
 *
 * A verification costs a scrypt hash (a tenth of a second or more, in libuv's pool), so a header that
 * verified once is remembered, by its exact text, in a bounded map owned by this instance: a
 * client's later requests cost one map lookup. Credentials are fixed for the server's life, so a
 * remembered answer never goes stale. Refusals are not remembered (each wrong guess pays a hash),
 * and concurrent first requests with one header share one verification.
 */
import { randomBytes } from 'node:crypto';
import { isRefusal, presentedCredentials, type Presented, type Refusal } from './authorization.ts';
import type { Credentials } from './credentials.ts';
import { DEFAULT_COST, verifySecret, type SecretHash } from './secret-hash.ts';

/** What unknown names are checked against: the default cost, so a refusal takes as long as a wrong secret. No secret matches it. */
const DECOY: SecretHash = { cost: DEFAULT_COST, salt: randomBytes(16), hash: randomBytes(32) };

export type Principal =
  | { type: 'realm'; username: string }
  | { type: 'api_key'; id: string; name: string };

/** Headers remembered at most; beyond it the oldest is forgotten (and verified again if seen again). */
export const DEFAULT_CACHE_SIZE = 1000;

export class Authenticator {
  readonly #verified = new Map<string, Principal>();
  readonly #pending = new Map<string, Promise<Principal | Refusal>>();

  constructor(
    readonly credentials: Credentials,
    private readonly cacheSize = DEFAULT_CACHE_SIZE,
  ) {}

  /** The principal of a header verified before, without any work; undefined otherwise. */
  cached(header: string | undefined): Principal | undefined {
    return header === undefined ? undefined : this.#verified.get(header);
  }

  /** Verifies the header's credentials (see {@link cached} for the cheap path). */
  authenticate(header: string | undefined): Promise<Principal | Refusal> {
    const known = this.cached(header);
    if (known) return Promise.resolve(known);
    const presented = presentedCredentials(header);
    if (isRefusal(presented)) return Promise.resolve(presented);
    const key = header!;
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#verify(presented)
        .then((outcome) => {
          if (!isRefusal(outcome)) this.#remember(key, outcome);
          return outcome;
        })
        .finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }

  async #verify(presented: Presented): Promise<Principal | Refusal> {
    if (presented.scheme === 'basic') {
      // An unknown user pays a hash too (against a decoy), so the time taken does not tell which users exist.
      const hash = this.credentials.users.get(presented.username);
      const ok = (await verifySecret(presented.password, hash ?? DECOY)) && hash !== undefined;
      return ok ? { type: 'realm', username: presented.username } : { kind: 'user', username: presented.username };
    }
    const entry = this.credentials.apiKeys.get(presented.id);
    if (!entry) {
      await verifySecret(presented.key, DECOY);
      return { kind: 'api_key', reason: `unable to find apikey with id ${presented.id}` };
    }
    if (!(await verifySecret(presented.key, entry.hash))) return { kind: 'api_key', reason: `invalid credentials for API key [${presented.id}]` };
    return { type: 'api_key', id: presented.id, name: entry.name };
  }

  #remember(header: string, principal: Principal): void {
    if (this.#verified.size >= this.cacheSize) this.#verified.delete(this.#verified.keys().next().value!);
    this.#verified.set(header, principal);
  }
}
