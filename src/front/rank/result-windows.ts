/**
 * What the front has learnt of the cluster's `index.max_result_window` per index expression: from
 * + size past it is refused ("Result window is too large, from + size must be less than or equal
 * to: [N] …"), which tells N. Unknown, it is Elasticsearch's default, 10,000.
 */
import type { ClusterAnswer } from '../cluster-calls.ts';

export const DEFAULT_WINDOW = 10_000;

export class ResultWindows {
  readonly #known = new Map<string, number>();

  /** The window of an index expression, as last learnt. */
  of(indices: string): number {
    return this.#known.get(indices) ?? DEFAULT_WINDOW;
  }

  /** Whether the answer is a refusal for the window; if so, its size is learnt. */
  refused(indices: string, answer: ClusterAnswer): boolean {
    if (answer.status !== 400) return false;
    const match = /Result window is too large, from \+ size must be less than or equal to: \[(\d+)\]/.exec(answer.text);
    if (!match) return false;
    this.#known.set(indices, Number(match[1]));
    return true;
  }
}
