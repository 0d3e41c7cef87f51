/**
 * `_cat/aliases`' columns, in ES's order (`RestAliasAction`): a row per alias and index it points
 * at; `filter` is `*` when the alias has one, routings are shown or `-`, `is_write_index` is `-`
 * when unset.
 */
import type { AliasProps } from '../../engine/aliases/alias.ts';
import type { Column } from './columns.ts';

export interface AliasRow {
  alias: string;
  index: string;
  props: AliasProps;
}

export const ALIASES_COLUMNS: readonly Column<AliasRow>[] = [
  { name: 'alias', aliases: ['a'], desc: 'alias name', value: (row) => row.alias },
  { name: 'index', aliases: ['i', 'idx'], desc: 'index alias points to', value: (row) => row.index },
  { name: 'filter', aliases: ['f', 'fi'], desc: 'filter', value: (row) => (row.props.filter ? '*' : '-') },
  { name: 'routing.index', aliases: ['ri', 'routingIndex'], desc: 'index routing', value: (row) => row.props.indexRouting ?? '-' },
  { name: 'routing.search', aliases: ['rs', 'routingSearch'], desc: 'search routing', value: (row) => row.props.searchRouting ?? '-' },
  { name: 'is_write_index', aliases: ['w', 'isWriteIndex'], desc: 'write index', value: (row) => (row.props.isWriteIndex === undefined ? '-' : String(row.props.isWriteIndex)) },
];
