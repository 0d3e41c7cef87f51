/**
 * The plain model that test/engine/paging.test.ts checks pages against. It knows nothing of sorted
 * runs, top-k or wasm: each shard is its documents in write order, cut into segments the way a
 * shard cuts them (a refresh seals the buffer into a segment, deletes stay in their segment until
 * it is merged away; more than eight segments and the run of two to four adjacent ones with the
 * fewest live documents per segment it removes is merged), which is all `_doc` needs: a document's
 * ordinal is the count of documents, deleted or not, in the segments before it plus its place in
 * its own.
 *
 * The order of a search is the sort clauses in turn (Elasticsearch's rules: missing values `_last`
 * by default whatever the order, `_first`, or a stand-in value; a multi-valued field sorts by its
 * least value ascending and its greatest descending unless `mode` says otherwise; keywords in code
 * point order; `_score` ties under match_all), then shard, then ordinal.
 *
 * Everything here is written from those rules, not from src/: no comparator, routing aside, is shared.
 */
import { shardFor } from '../../src/engine/routing.ts';
import type { SortClause } from '../../src/engine/search/request.ts';

export type Price = number | null | (number | null)[];
export type Tag = string | null | (string | null)[];
/** A document's source: both fields optional, null or arrays allowed. */
export interface Source {
  price?: Price;
  tag?: Tag;
}

/** One written version of a document. */
export interface Entry {
  id: string;
  source: Source;
}

/** A sealed segment: its entries in write order, and which are deleted (as published). */
interface ModelSegment {
  entries: Entry[];
  deleted: boolean[];
}

export type Outcome = 'created' | 'updated' | 'deleted' | 'not_found' | 'noop' | 'missing';

const MAX_SEGMENTS = 8;
const MAX_MERGE_AT_ONCE = 4;

class ShardModel {
  /** The published segments: what searches see. */
  segments: ModelSegment[] = [];
  /** Written, not yet refreshed, in write order. */
  #buffer: Entry[] = [];
  #pending = new Map<ModelSegment, number[]>();
  #ids = new Map<string, { entry: Entry; segment?: ModelSegment; local: number }>();
  /** The published segments at the last flush: what a restart loads. */
  #commit: ModelSegment[] = [];
  /** Each entry's place in the shard's write order (its seq). */
  #order = new Map<Entry, number>();

  current(id: string): Entry | undefined {
    return this.#ids.get(id)?.entry;
  }

  put(entry: Entry): 'created' | 'updated' {
    const replaced = this.remove(entry.id);
    this.#order.set(entry, this.#order.size);
    this.#buffer.push(entry);
    this.#ids.set(entry.id, { entry, local: -1 });
    return replaced ? 'updated' : 'created';
  }

  remove(id: string): boolean {
    const at = this.#ids.get(id);
    if (!at) return false;
    this.#ids.delete(id);
    if (at.segment) {
      const list = this.#pending.get(at.segment) ?? [];
      list.push(at.local);
      this.#pending.set(at.segment, list);
    } else {
      this.#buffer.splice(this.#buffer.indexOf(at.entry), 1);
    }
    return true;
  }

  refresh(): void {
    if (this.#buffer.length === 0 && this.#pending.size === 0) return;
    let segments = this.segments.map((segment) => {
      const locals = this.#pending.get(segment);
      if (!locals) return segment;
      const deleted = segment.deleted.slice();
      for (const local of locals) deleted[local] = true;
      return { entries: segment.entries, deleted };
    });
    // A segment with new deletes is a new object: point the id table at it.
    for (const segment of segments) this.#relocate(segment);
    this.#pending.clear();
    if (this.#buffer.length > 0) {
      const sealed = { entries: this.#buffer, deleted: this.#buffer.map(() => false) };
      this.#buffer = [];
      this.#relocate(sealed);
      segments.push(sealed);
    }
    segments = segments.filter((s) => s.deleted.some((d) => !d));
    const live = (s: ModelSegment) => s.deleted.filter((d) => !d).length;
    while (segments.length > MAX_SEGMENTS) {
      // The run of 2 to MAX_MERGE_AT_ONCE adjacent segments with the fewest live documents per segment it removes (the first such run).
      let best = 0, size = 2, cost = Infinity;
      for (let i = 0; i + 1 < segments.length; i++) {
        for (let k = 2; k <= MAX_MERGE_AT_ONCE && i + k <= segments.length; k++) {
          const docs = segments.slice(i, i + k).reduce((n, s) => n + live(s), 0);
          if (docs / (k - 1) < cost) [best, size, cost] = [i, k, docs / (k - 1)];
        }
      }
      const entries = segments.slice(best, best + size).flatMap((s) => s.entries.filter((_, i) => !s.deleted[i]));
      const merged = { entries, deleted: entries.map(() => false) };
      this.#relocate(merged);
      segments.splice(best, size, merged);
    }
    this.segments = segments;
  }

  /** A flush: refreshed, and the segments as they are become the commit point. */
  flush(): void {
    this.refresh();
    this.#commit = this.segments;
  }

  /**
   * A restart (after a flush if clean): the commit point's segments, the deletes since as pending,
   * the live documents written since in the buffer in write order, then a refresh.
   */
  restart(clean: boolean): void {
    if (clean) this.flush();
    const live = new Map([...this.#ids].map(([id, at]) => [id, at.entry]));
    const committed = new Set<Entry>();
    this.segments = this.#commit;
    this.#pending.clear();
    this.#ids.clear();
    for (const segment of this.#commit) {
      segment.entries.forEach((entry, local) => {
        if (segment.deleted[local]) return;
        if (live.get(entry.id) === entry) {
          committed.add(entry);
          this.#ids.set(entry.id, { entry, segment, local });
        } else this.#pending.set(segment, [...(this.#pending.get(segment) ?? []), local]);
      });
    }
    this.#buffer = [...live.values()].filter((entry) => !committed.has(entry)).sort((a, b) => this.#order.get(a)! - this.#order.get(b)!);
    for (const entry of this.#buffer) this.#ids.set(entry.id, { entry, local: -1 });
    this.refresh();
  }

  #relocate(segment: ModelSegment): void {
    segment.entries.forEach((entry, local) => {
      const at = this.#ids.get(entry.id);
      if (at?.entry === entry && !segment.deleted[local]) {
        at.segment = segment;
        at.local = local;
      }
    });
  }
}

/** A visible document: its entry, shard and ordinal in the shard. */
export interface Row {
  entry: Entry;
  shard: number;
  ordinal: number;
}

export class IndexModel {
  readonly shards: ShardModel[];

  constructor(readonly shardCount: number) {
    this.shards = Array.from({ length: shardCount }, () => new ShardModel());
  }

  #shard(id: string): ShardModel {
    return this.shards[shardFor(id, this.shardCount)];
  }

  index(id: string, source: Source): Outcome {
    return this.#shard(id).put({ id, source });
  }

  /** ES's partial update: `doc` merged into the source, a noop when that changes nothing. */
  update(id: string, doc: Source, docAsUpsert: boolean): Outcome {
    const current = this.#shard(id).current(id);
    if (!current) return docAsUpsert ? this.index(id, doc) : 'missing';
    const merged = { ...current.source, ...doc };
    if (JSON.stringify(merged) === JSON.stringify(current.source)) return 'noop';
    this.index(id, merged);
    return 'updated';
  }

  delete(id: string): Outcome {
    return this.#shard(id).remove(id) ? 'deleted' : 'not_found';
  }

  refresh(): void {
    for (const shard of this.shards) shard.refresh();
  }

  flush(): void {
    for (const shard of this.shards) shard.flush();
  }

  /** A restart; `clean` when the node shut down (and flushed), else as after a crash. */
  restart(clean: boolean): void {
    for (const shard of this.shards) shard.restart(clean);
  }

  /** Per shard, per published segment: [documents, deleted ones]. */
  layout(): [number, number][][] {
    return this.shards.map((shard) => shard.segments.map((s) => [s.entries.length, s.deleted.filter(Boolean).length]));
  }

  /** The published documents, in shard order, then ordinal order. */
  rows(): Row[] {
    const rows: Row[] = [];
    this.shards.forEach((shard, s) => {
      let base = 0;
      for (const segment of shard.segments) {
        segment.entries.forEach((entry, local) => {
          if (!segment.deleted[local]) rows.push({ entry, shard: s, ordinal: base + local });
        });
        base += segment.entries.length;
      }
    });
    return rows;
  }
}

/** What a hit shows: its id and sort values. */
export interface Expected {
  _id: string;
  sort?: unknown[];
}

/** The published documents in the order of `sort`, each with the `sort` array its hit carries. */
export function expectedOrder(model: IndexModel, sort: readonly SortClause[]): { rows: Row[]; hits: Expected[] } {
  const rows = model.rows();
  rows.sort((a, b) => {
    for (const clause of sort) {
      const c = compareOn(clause, a, b);
      if (c !== 0) return c;
    }
    return a.shard - b.shard || a.ordinal - b.ordinal;
  });
  const keyed = sort.some((c) => c.kind !== 'score');
  const byField = keyed || sort.some((c) => c.kind === 'score' && c.order === 'asc');
  return { rows, hits: rows.map((row) => ({ _id: row.entry.id, ...(byField && { sort: sort.map((c) => sortValue(c, row)) }) })) };
}

type Value = number | string | undefined;

function family(clause: Extract<SortClause, { kind: 'field' }>): 'number' | 'keyword' {
  if (clause.field === 'price') return 'number';
  if (clause.field === 'tag') return 'keyword';
  return clause.unmappedType === 'keyword' ? 'keyword' : 'number';
}

/** The document's value for a field clause: the least or greatest of its values, undefined if none. */
function picked(clause: Extract<SortClause, { kind: 'field' }>, row: Row): Value {
  const raw = clause.field === 'price' ? row.entry.source.price : clause.field === 'tag' ? row.entry.source.tag : undefined;
  const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is number | string => v !== null && v !== undefined);
  if (values.length === 0) return undefined;
  const mode = clause.mode ?? (clause.order === 'asc' ? 'min' : 'max');
  return values.reduce((best, v) => {
    const c = compareScalar(v, best);
    return (mode === 'min' ? c < 0 : c > 0) ? v : best;
  });
}

function standIn(clause: Extract<SortClause, { kind: 'field' }>): Value {
  if (clause.missing === '_first' || clause.missing === '_last') return undefined;
  return family(clause) === 'number' ? Number(clause.missing) : String(clause.missing);
}

function compareOn(clause: SortClause, a: Row, b: Row): number {
  if (clause.kind === 'score') return 0;
  const sign = clause.order === 'asc' ? 1 : -1;
  if (clause.kind === 'doc') return sign * (a.ordinal - b.ordinal);
  if (clause.kind === 'shard_doc') return sign * (a.shard - b.shard || a.ordinal - b.ordinal);
  const x = picked(clause, a) ?? standIn(clause);
  const y = picked(clause, b) ?? standIn(clause);
  if (x === undefined || y === undefined) {
    if (x === y) return 0;
    // `_last` and `_first` do not turn with the order.
    return (x === undefined) === (clause.missing === '_first') ? -1 : 1;
  }
  return sign * compareScalar(x, y);
}

function sortValue(clause: SortClause, row: Row): unknown {
  if (clause.kind === 'score') return 1;
  if (clause.kind === 'doc') return row.ordinal;
  // One index: a shard's place in the search is its number; ES puts it above 32 bits of ordinal.
  if (clause.kind === 'shard_doc') return row.shard * 2 ** 32 + row.ordinal;
  return picked(clause, row) ?? standIn(clause) ?? null;
}

/** Numbers by value; strings by code point (UTF-8 byte) order, not UTF-16 units. */
function compareScalar(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  const x = [...String(a)].map((c) => c.codePointAt(0)!);
  const y = [...String(b)].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}
