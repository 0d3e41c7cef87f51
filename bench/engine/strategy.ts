/**
 * A way to answer `from`/`size` pages sorted by a numeric field, descending: deeppage's engine or
 * a peer. Adding a strategy to {@link STRATEGIES} in suite.ts puts it on every chart and table.
 */
import type { SuiteContext } from '../lib/suite.ts';
import type { Placement } from './placement.ts';

export interface Strategy {
  name: string;
  /** One line for the report: what it is and what it does per page. */
  description: string;
  /**
   * `exact`: breaks ties as Elasticsearch does (shard, then index order), so its pages must equal
   * the reference document for document. `keys`: its own tie-break, so its pages must carry the
   * reference's sort keys, in order, with each document's own key and no document twice.
   */
  ties: 'exact' | 'keys';
  /** Whether it runs on this placement (a peer may be measured on one corpus only). */
  accepts(placement: Placement): boolean;
  open(placement: Placement, ctx: SuiteContext): Promise<OpenStrategy>;
}

/** The answer to one page, in the strategy's own form (timed code returns it as is). */
export type Answer = { length: number };

export interface OpenStrategy {
  /** Timed: one page. */
  page(from: number, size: number): Answer | Promise<Answer>;
  /** Untimed: the corpus positions of an answer's documents, for the checks. */
  docs(answer: Answer): ArrayLike<number>;
  /**
   * Drops whatever the strategy keeps between pages (deeppage: `_cache/clear`). When present, the
   * suite also times each page right after it, as `<name>-cold`: what a first page costs.
   */
  forget?(): void;
  /** Resolves once work the strategy does between requests (deeppage's background run builds) is done: the warm state. */
  settle?(): Promise<void>;
  /**
   * Untimed: prepares the page at `from` asked as `search_after` the hit at rank `from - 1` (over a
   * point in time, so that positions are unique); returns the timed call. Strategies with cursors only.
   */
  pageAfter?(from: number, size: number): () => Answer;
  /** What the strategy holds in memory after the sweep (deeppage: its sorted runs, bytes per document). */
  footprint?(): Record<string, number>;
  close(): Promise<void>;
}
