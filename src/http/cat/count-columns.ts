/**
 * `_cat/count`'s columns (`RestCountAction`): the timestamp columns, then the exact number of
 * documents the query matches, which ES does not right-align.
 */
import { TIMESTAMP_COLUMNS, type Column, type Timed } from './columns.ts';

export interface CountRow extends Timed {
  count: number;
}

export const COUNT_COLUMNS: readonly Column<CountRow>[] = [
  ...TIMESTAMP_COLUMNS,
  { name: 'count', aliases: ['dc', 'docs.count', 'docsCount'], desc: 'the document count', value: (row) => row.count },
];
