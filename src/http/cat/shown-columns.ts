/**
 * Which columns a `_cat` answer shows, and under what names (ES's `RestTable.buildDisplayHeaders`).
 *
 * Without `h`: every column not `hidden`. With `h`: its comma list in order, each a name, an alias
 * (shown under the alias as written) or a `*` pattern over names and aliases (shown under the
 * name); names that match nothing are dropped without a word, and each name or pattern counts
 * once. A column with a `pri` sibling brings its `pri.` twin along when `pri=true`. Either way
 * `ts=false` drops the timestamp columns. The flags are read only where ES reads them, so a bad
 * `ts` or `pri` is an error only where it would change something.
 */
import { globPattern } from '../../engine/patterns.ts';
import { booleanParam } from '../../engine/booleans.ts';
import { commaList } from '../../engine/request/request-values.ts';
import { isTimestampColumn, type Column } from './columns.ts';

type Params = Record<string, string | undefined>;

export interface ShownColumn<R> {
  column: Column<R>;
  /** The header, and the JSON key. */
  display: string;
}

export function shownColumns<R>(columns: readonly Column<R>[], query: Params): ShownColumn<R>[] {
  const timestampsKept = (column: Column<R>) => !isTimestampColumn(column) || booleanParam(query.ts, true);
  if (query.h === undefined) return columns.filter((column) => !column.hidden && timestampsKept(column)).map((column) => ({ column, display: column.name }));

  const shown: ShownColumn<R>[] = [];
  for (const wanted of requestedNames(columns, query.h)) {
    const found = named(columns, wanted);
    if (found === undefined || !timestampsKept(found.column)) continue;
    shown.push(found);
    const { sibling, name } = found.column;
    const twin = sibling && columns.find((column) => column.name === `${sibling}.${name}`);
    if (twin && booleanParam(query[sibling], false)) shown.push({ column: twin, display: `${sibling}.${found.display}` });
  }
  return shown;
}

/** `h`'s items with each `*` pattern replaced by the names of the columns it matches (by name or alias), each once. */
function requestedNames<R>(columns: readonly Column<R>[], h: string): Set<string> {
  const names = new Set<string>();
  for (const item of commaList(h)) {
    if (!item.includes('*')) {
      names.add(item);
      continue;
    }
    const pattern = globPattern(item);
    for (const column of columns) {
      if (pattern.test(column.name) || column.aliases?.some((alias) => pattern.test(alias))) names.add(column.name);
    }
  }
  return names;
}

/** The column a name or alias stands for; of several columns sharing an alias, ES takes the last. */
function named<R>(columns: readonly Column<R>[], wanted: string): ShownColumn<R> | undefined {
  const byName = columns.find((column) => column.name === wanted);
  if (byName) return { column: byName, display: wanted };
  const byAlias = [...columns].reverse().find((column) => column.aliases?.includes(wanted));
  return byAlias && { column: byAlias, display: wanted };
}
