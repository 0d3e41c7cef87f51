/**
 * The plain-text `_cat` answers, laid out as ES's `RestTable.buildTextPlainResponse` and
 * `AbstractCatAction`'s help do it.
 *
 * A column is as wide as its longest cell (and its header, with `v`). Cells are left-aligned and
 * padded on the right, except in right-aligned columns, whose cells and header are padded on the
 * left. Columns are separated by one space and every line ends with `\n`; the last column gets no
 * trailing padding unless it is right-aligned. An empty cell is padded like any other. No rows and
 * no `v` is an empty body.
 *
 * @example
 * // GET /_cat/indices?v&h=index,docs.count
 * // index     docs.count
 * // books           1000
 * // logs-2024         12
 */
import type { Column } from './columns.ts';
import type { ShownColumn } from './shown-columns.ts';

/** Each displayed column's cells as text (null for none), in row order; `rows` of them. */
export type TextColumns<R> = { shown: ShownColumn<R>; cells: (string | null)[] }[];

export function textTable<R>(columns: TextColumns<R>, rows: number, verbose: boolean): string {
  const widths = columns.map(({ shown, cells }) => cells.reduce((width, cell) => Math.max(width, cell?.length ?? 0), verbose ? shown.display.length : 0));
  const line = (cellOf: (i: number) => string | null) =>
    columns.map(({ shown }, i) => pad(cellOf(i), widths[i], shown.column.right === true, i === columns.length - 1)).join(' ') + '\n';
  // With no column shown (`h` naming none), each row is still its line.
  let text = verbose ? line((i) => columns[i].shown.display) : '';
  for (let row = 0; row < rows; row++) text += line((i) => columns[i].cells[row]);
  return text;
}

/** `help=true`: per column its name, its aliases and what it is, each part padded to the widest (the last too). */
export function helpText(columns: readonly Column<never>[]): string {
  const parts = columns.map((column) => [column.name, column.aliases?.join(',') ?? '', column.desc]);
  const widths = [0, 1, 2].map((part) => Math.max(...parts.map((line) => line[part].length)));
  return parts.map((line) => line.map((text, part) => pad(text, widths[part], false, false)).join(' | ') + '\n').join('');
}

/**
 * One cell padded to its column's width. ES keeps the count of spaces in a Java `byte`: a cell 128
 * to 255 characters narrower than its column wraps to a negative count and gets no padding at all
 * (a table with a 160-character index name shows it).
 */
function pad(text: string | null, width: number, right: boolean, last: boolean): string {
  const value = text ?? '';
  const spaces = ((width - value.length) << 24) >> 24;
  if (spaces > 0 && right) return ' '.repeat(spaces) + value;
  return last || spaces <= 0 ? value : value + ' '.repeat(spaces);
}
