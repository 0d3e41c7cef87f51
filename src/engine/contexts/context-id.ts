/**
 * The ids of points in time and scrolls: opaque URL-safe base64 to the client, inside the kind, the
 * node's session and the context's number. The session (random per start) keeps an id from before
 * a restart from naming a new context that happens to have the same number.
 *
 * @example
 * const ids = new ContextIds();
 * ids.decode('pit', ids.encode('pit', 7)) // { n: 7, ours: true }
 */
import { randomBytes } from 'node:crypto';
import { illegalArgument } from '../errors.ts';

export type ContextKind = 'pit' | 'scroll';

const PREFIX: Record<ContextKind, string> = { pit: 'p', scroll: 's' };

export class ContextIds {
  readonly #session = randomBytes(9).toString('base64url');

  encode(kind: ContextKind, n: number): string {
    return Buffer.from(`${PREFIX[kind]}:${this.#session}:${n}`).toString('base64url');
  }

  /**
   * The context number, and whether this session issued it (an id from before a restart names a
   * context that is gone). A malformed id is the client's error, in Elasticsearch's words for each kind.
   */
  decode(kind: ContextKind, id: string): { n: number; ours: boolean } {
    const match = /^([ps]):([A-Za-z0-9_-]{12}):(\d{1,15})$/.exec(/^[A-Za-z0-9_-]+={0,2}$/.test(id) ? Buffer.from(id, 'base64url').toString('latin1') : '');
    if (!match || match[1] !== PREFIX[kind]) throw kind === 'pit' ? illegalArgument(`invalid id: [${id}]`) : illegalArgument('Cannot parse scroll id');
    return { n: Number(match[3]), ours: match[2] === this.#session };
  }
}
