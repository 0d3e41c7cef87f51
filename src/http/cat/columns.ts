/**
 * A `_cat` column as Elasticsearch's `Table` declares one: a name, its aliases, whether counts and
 * sizes are right-aligned, whether it shows without `h` naming it, and the `pri.` twin `pri=true`
 * adds beside it. Each endpoint lists its columns in ES's order (cat/indices-columns.ts, …): that
 * order is the default display, what `h=*` expands to, and the `help` listing.
 */

/** A byte count: rendered as ES's `ByteSizeValue` (`225.3kb`, or a whole unit under `bytes=`), sorted by bytes. */
export class ByteSize {
  constructor(readonly bytes: number) {}
}

/**
 * A cell as ES's table holds it: `s` compares values of one kind natively (numbers numerically)
 * and others by their text; `null` is a figure ES does not have, an empty cell (`null` in JSON).
 */
export type CellValue = string | number | ByteSize | null;

export interface Column<R> {
  name: string;
  aliases?: readonly string[];
  /** Counts and sizes: their cells, and their header, are padded on the left. */
  right?: true;
  /** ES's `default:false`: shown only when `h` names it. */
  hidden?: true;
  /** The flag whose `<flag>.<name>` twin `h` adds after this column when the flag is true (`pri`). */
  sibling?: 'pri';
  /** What `help` says of it. */
  desc: string;
  value: (record: R) => CellValue;
}

/** Rows that carry the moment they were taken, for the columns ES puts first on `_cat/count` and `_cat/health`. */
export interface Timed {
  /** ms since the epoch. */
  at: number;
}

/** `Table.startHeadersWithTimestamp`'s two columns, which `ts=false` leaves out. */
export const TIMESTAMP_COLUMNS: readonly Column<Timed>[] = [
  { name: 'epoch', aliases: ['t', 'time'], desc: 'seconds since 1970-01-01 00:00:00', value: ({ at }) => Math.floor(at / 1000) },
  { name: 'timestamp', aliases: ['ts', 'hms', 'hhmmss'], desc: 'time in HH:MM:SS', value: ({ at }) => new Date(at).toISOString().slice(11, 19) },
];

export const isTimestampColumn = (column: Column<never>): boolean => column.name === 'epoch' || column.name === 'timestamp';
