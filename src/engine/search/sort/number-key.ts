/**
 * Numbers (dates and booleans too) sort as themselves. Multi-valued fields sort by their least or
 * greatest value (`mode`); a stand-in for missing values may be a number, a numeric string or a date.
 */
import type { KeyOrder } from '../../../core/index.ts';
import { badRequest } from '../../errors.ts';
import { parseDate } from '../../mapping.ts';
import type { NumberColumn } from '../../segments/segment.ts';
import type { LiveSegment } from '../../shard/shard-snapshot.ts';
import { keyName } from '../order-key.ts';
import type { FieldClause } from '../request.ts';
import type { SortKeySource } from './key.ts';
import { afterNumber } from './after-value.ts';
import { modeOf } from './mode.ts';

/** Numbers compare across segments as stored: no map, no offset. */
const AS_STORED = Object.freeze({});

export function numberKey(clause: FieldClause): SortKeySource {
  const mode = modeOf(clause);
  const missing = numberMissing(clause);
  const order: KeyOrder = { order: clause.order, missing };
  const values = (live: LiveSegment) => {
    const column = live.segment.columns.get(clause.field);
    return column?.kind === 'number' ? pick(column, mode) : undefined;
  };
  return {
    id: keyName('number', clause.field, clause.order, missing, mode),
    order,
    asStored: true,
    column: (live) => values(live) ?? new Float64Array(live.segment.count).fill(NaN),
    columnId: `number:${clause.field}:${mode}`,
    localOrder: () => order,
    readAs: () => AS_STORED,
    afterValue: (value) => afterNumber(clause.field, value),
    sortValue({ live }, local) {
      const value = values(live)?.[local];
      if (value !== undefined && !Number.isNaN(value)) return value;
      // ES shows the value that stood in for a missing one.
      return typeof order.missing === 'number' ? order.missing : null;
    },
  };
}

function numberMissing(clause: FieldClause): NonNullable<KeyOrder['missing']> {
  const { missing } = clause;
  if (missing === '_last' || missing === '_first' || typeof missing === 'number') return missing;
  // Dates may stand in as date strings; other numbers as numeric strings.
  const n = missing.trim() === '' ? NaN : Number(missing);
  const value = Number.isNaN(n) ? parseDate(missing) : n;
  if (value === undefined) throw badRequest('number_format_exception', `For input string: "${missing}"`);
  return value;
}

function pick(column: NumberColumn, mode: 'min' | 'max'): Float64Array {
  return mode === 'max' && column.max ? column.max : column.min;
}
