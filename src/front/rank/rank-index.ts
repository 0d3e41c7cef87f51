/**
 * A rank index: the sort keys of every match of one search (identity, indices, query, sort), in the
 * cluster's order within one point in time, each with the point in time's `_shard_doc` tie-breaker,
 * as columns in wasm memory (key-columns.ts). Dense, it holds every document's keys; sparse, every
 * `stride`-th (memory-budget.ts chooses), and a page starts from the nearest kept key below it and
 * drops the hits in between.
 *
 * A page [from, from + size) is then one `search_after` in the same point in time, from the keys of
 * the document at rank from − 1: exact, in the cluster's order, consistent with the point in time.
 */
import type { KeyColumn } from './key-columns.ts';

/** Where a page starts: the `search_after` values (JSON text of an array), and the hits to drop before it. */
export interface PagePosition {
  after?: string;
  skip: number;
}

export class RankIndex {
  #pitId: string;

  constructor(
    /** Matches in the point in time. */
    readonly documents: number,
    /** A key is kept for ranks stride − 1, 2·stride − 1, …; 1: every rank. */
    readonly stride: number,
    /** Per sort key, then the tie-breaker: the kept keys in rank order. */
    private readonly columns: readonly KeyColumn[],
    /** The keys of the last match (the position after every match), JSON text of an array, when its rank's keys are not kept. */
    private readonly lastKeys: string | undefined,
    pitId: string,
    /** When the point in time was opened. */
    readonly openedAt: Date,
    /** Milliseconds the walk took. */
    readonly buildMs: number,
    /** Slices the walk was split into (1: one stream). */
    readonly slices = 1,
  ) {
    this.#pitId = pitId;
  }

  /** The point in time's id, as its newest answer gave it (ids can change between answers). */
  get pitId(): string {
    return this.#pitId;
  }

  set pitId(id: string) {
    this.#pitId = id;
  }

  /** Where the page starting at rank `from` starts. */
  position(from: number): PagePosition {
    if (from === 0) return { skip: 0 };
    if (from >= this.documents) {
      const kept = Math.floor(this.documents / this.stride);
      return { after: this.lastKeys ?? (kept > 0 ? this.keysAt(kept - 1) : undefined), skip: 0 };
    }
    const kept = Math.floor(from / this.stride);
    if (kept === 0) return { skip: from };
    return { after: this.keysAt(kept - 1), skip: from - kept * this.stride };
  }

  get bytes(): number {
    return this.columns.reduce((sum, column) => sum + column.bytes, 0) + (this.lastKeys?.length ?? 0) * 2;
  }

  free(): void {
    for (const column of this.columns) column.free();
  }

  private keysAt(slot: number): string {
    return `[${this.columns.map((column) => column.textAt(slot)).join(',')}]`;
  }
}
