/**
 * How deep the page may go. On deeppage itself, and on Elasticsearch, `from + size` may not pass
 * the index's `max_result_window`. A front (`npm start -- -E front.hosts=…`) answers a sorted page
 * at any depth, past the cluster's window too, so there the hits are the only limit.
 */

/** The pages of `size` hits the page offers: those that fit the hits and, but over a front, the window. */
export function pageCount({ total, size, maxResultWindow }, front) {
  const byHits = Math.ceil(total / size);
  if (front) return Math.max(1, byHits);
  return Math.max(1, Math.min(byHits, Math.floor(maxResultWindow / size)));
}

/**
 * Whether a `GET _nodes/stats?filter_path=front` answer is a front's: a front adds its own figures
 * under `front`, where deeppage and the cluster answer `{}` (asked so, they send nothing else).
 */
export const isFrontAnswer = (body) => body !== null && typeof body === 'object' && typeof body.front === 'object' && body.front !== null;
