/**
 * @orama/orama, the search engine a Node developer would reach for: the documents inserted into an
 * Orama database, and each page one `search` with an empty term (every document), `sortBy` the
 * field descending, `offset`/`limit`. Orama breaks ties its own way, so it is checked on keys.
 * Measured on the cities only, the corpus it is compared on.
 */
import { create, insertMultiple, search, type Results } from '@orama/orama';
import { positions } from './deeppage.ts';
import type { Strategy } from '../strategy.ts';

const BATCH = 5_000;

export const orama: Strategy = {
  name: 'orama',
  description: '@orama/orama search: empty term, sortBy the field desc, offset = from, limit = size',
  ties: 'keys',
  accepts: ({ corpus }) => corpus.name === 'cities',
  async open({ corpus }, ctx) {
    const field = corpus.field;
    const db = create({ schema: { id: 'string', [field]: 'number' } as const });
    const n = corpus.ids.length;
    const bar = ctx.progress(`orama: inserting ${corpus.name}`, n);
    for (let at = 0; at < n; at += BATCH) {
      const batch = [];
      for (let i = at; i < Math.min(at + BATCH, n); i++) batch.push({ id: corpus.ids[i], [field]: corpus.keys[i] });
      await insertMultiple(db, batch, BATCH);
      bar.update(Math.min(at + BATCH, n));
    }
    bar.stop();
    const position = positions(corpus);
    return {
      page: async (from, size) => (await search(db, { term: '', sortBy: { property: field, order: 'DESC' }, offset: from, limit: size })).hits,
      docs: (hits) => (hits as Results<never>['hits']).map((hit) => position.get(hit.id)!),
      close: async () => {},
    };
  },
};
