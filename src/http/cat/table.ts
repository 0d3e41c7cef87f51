/**
 * A `_cat` table: an endpoint's columns and one row of cells per record, in the order the records
 * came (ES's rows come in its internal map order; only `s` sorts them). How a cell reads as text
 * (`bytes=`) is {@link cellText}, the one rendering both the text table and JSON use.
 */
import { byteSize } from '../../engine/breakers/memory-breaker.ts';
import { ByteSize, type CellValue, type Column } from './columns.ts';

export interface CatTable<R> {
  columns: readonly Column<R>[];
  /** `rows[i][j]`: record i's cell in column j. */
  rows: readonly (readonly CellValue[])[];
}

export function tableOf<R>(columns: readonly Column<R>[], records: readonly R[]): CatTable<R> {
  return { columns, rows: records.map((record) => columns.map((column) => column.value(record))) };
}

/** `bytes=` units in powers of 1024, as `ByteSizeValue.getKb()`… give them: whole units, cut. */
const BYTE_UNITS = new Map(Object.entries({ b: 0, k: 1, kb: 1, m: 2, mb: 2, g: 3, gb: 3, t: 4, tb: 4, p: 5, pb: 5 }));

/**
 * A cell as ES's `RestTable.renderValue` writes it, or null for no value. Any other `bytes` value
 * falls back to the readable size, as ES does (it is not an error there either).
 */
export function cellText(value: CellValue, bytesUnit: string | undefined): string | null {
  if (value === null) return null;
  if (value instanceof ByteSize) {
    const power = bytesUnit === undefined ? undefined : BYTE_UNITS.get(bytesUnit);
    return power === undefined ? byteSize(value.bytes) : String(Math.floor(value.bytes / 1024 ** power));
  }
  return String(value);
}
