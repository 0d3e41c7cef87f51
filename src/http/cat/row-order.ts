/**
 * The order of a `_cat` table's rows under `s` (ES's `RestTable.getRowOrder`): a comma list of
 * column names or aliases, each optionally `:asc` or `:desc`. Keys compare in turn; `null` comes
 * first (last under `:desc`); two values of one kind compare natively, numbers numerically and byte
 * sizes by bytes; anything else compares as text. The sort is stable, and without `s` the rows keep
 * the order they came in.
 */
import { EsError, illegalArgument } from '../../engine/errors.ts';
import { commaList } from '../../engine/request/request-values.ts';
import { ByteSize, type CellValue } from './columns.ts';
import { cellText, type CatTable } from './table.ts';

/** Row indexes in display order. */
export function rowOrder<R>(table: CatTable<R>, s: string | undefined): number[] {
  const order = table.rows.map((_, i) => i);
  if (s === undefined) return order;
  const columnOf = columnIndexes(table);
  const keys = commaList(s).map((item) => {
    const reverse = item.endsWith(':desc');
    const key = reverse ? item.slice(0, -':desc'.length) : item.endsWith(':asc') ? item.slice(0, -':asc'.length) : item;
    const column = columnOf.get(key);
    if (column === undefined) throw unknownSortKey(key);
    return { column, sign: reverse ? -1 : 1 };
  });
  return order.sort((a, b) => {
    for (const { column, sign } of keys) {
      const c = compareCells(table.rows[a][column], table.rows[b][column]);
      if (c !== 0) return sign * c;
    }
    return 0;
  });
}

/**
 * Names and aliases to column indexes, as ES's `Table.getAliasMap` builds it: a later column's
 * alias, or any column's own name, wins over an earlier column's alias.
 */
function columnIndexes<R>(table: CatTable<R>): Map<string, number> {
  const map = new Map<string, number>();
  table.columns.forEach((column, i) => {
    for (const alias of column.aliases ?? []) map.set(alias, i);
    map.set(column.name, i);
  });
  return map;
}

function compareCells(a: CellValue, b: CellValue): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof ByteSize && b instanceof ByteSize) return a.bytes - b.bytes;
  // Java's String.compareTo: UTF-16 code units, as `<` compares them.
  const x = cellText(a, undefined)!, y = cellText(b, undefined)!;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * ES's message. ES throws an `UnsupportedOperationException`, which some versions answer as a 500;
 * a bad parameter is the client's error, so deeppage answers 400 (one public 8.15 capture shows ES
 * doing the same, as `illegal_argument_exception`).
 */
function unknownSortKey(key: string): EsError {
  return illegalArgument(`Unable to sort by unknown sort key \`${key}\``);
}
