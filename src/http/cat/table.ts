/**
 * A `_cat` table: an endpoint's columns and one row of cells per record, in the order the records
 * came (ES's rows come in its internal map order; only `s` sorts them). How a cell reads as text
 * (`bytes=`) is {@link cellText}, the one rendering both the text table and JSON use.
 */
import { formatByteSize, inUnit } from '../../engine/byte-size.ts';
import { ByteSize, type CellValue, type Column } from './columns.ts';

export interface CatTable<R> {
  columns: readonly Column<R>[];
  /** `rows[i][j]`: record i's cell in column j. */
  rows: readonly (readonly CellValue[])[];
}

export function tableOf<R>(columns: readonly Column<R>[], records: readonly R[]): CatTable<R> {
  return { columns, rows: records.map((record) => columns.map((column) => column.value(record))) };
}

/**
 * A cell as ES's `RestTable.renderValue` writes it, or null for no value. Any other `bytes` value
 * falls back to the readable size, as ES does (it is not an error there either).
 */
export function cellText(value: CellValue, bytesUnit: string | undefined): string | null {
  if (value === null) return null;
  if (value instanceof ByteSize) {
    const whole = bytesUnit === undefined ? undefined : inUnit(value.bytes, bytesUnit);
    return whole === undefined ? formatByteSize(value.bytes) : String(whole);
  }
  return String(value);
}
