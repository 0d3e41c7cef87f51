/**
 * The field types deeppage maps, and what each is to the rest of the engine: how its values sort
 * ({@link sortFamily}) and how a segment keeps them ({@link indexFamily}). The mappings
 * (mapping.ts) and the parameters each type takes (field-params.ts) both read these.
 */

export const NUMERIC_TYPES = ['long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float', 'unsigned_long'] as const;
export const FIELD_TYPES = ['keyword', 'text', 'date', 'boolean', ...NUMERIC_TYPES] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** How a field's values sort: as numbers (dates and booleans too) or as keyword terms. */
export type SortFamily = 'number' | 'keyword' | 'none';

export function sortFamily(type: FieldType): SortFamily {
  if (type === 'keyword') return 'keyword';
  if (type === 'text') return 'none';
  return 'number';
}

/** How a segment keeps a field: a sort column (numbers, keywords) or an inverted index (text). */
export type IndexFamily = 'number' | 'keyword' | 'text';

export function indexFamily(type: FieldType): IndexFamily {
  return type === 'text' ? 'text' : sortFamily(type) === 'keyword' ? 'keyword' : 'number';
}
