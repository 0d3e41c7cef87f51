/** Number formats and Markdown tables shared by the suites' summaries. */

/** A latency in ms with about three significant figures. */
export function ms(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toPrecision(2);
}

/** A ratio such as a speed-up: `6.51×`, `17×`. */
export function ratio(x: number): string {
  return `${x >= 10 ? x.toFixed(0) : x.toFixed(2)}×`;
}

/** An integer with thousands separators, or a dash when absent. */
export function count(x: number | string | undefined): string {
  return x === undefined ? '—' : Math.round(Number(x)).toLocaleString('en-US');
}

/** A Markdown table; `align` has one `l` or `r` per column (default: first left, the rest right). */
export function table(headers: string[], rows: string[][], align?: string): string {
  const a = align ?? 'l' + 'r'.repeat(headers.length - 1);
  const rule = headers.map((_, i) => (a[i] === 'r' ? '---:' : '---'));
  return [headers, rule, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** The q-quantile (0 ≤ q ≤ 1) of ascending values, interpolated linearly between neighbours. */
export function quantile(sorted: Float64Array, q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}
