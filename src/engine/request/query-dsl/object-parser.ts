/**
 * The behaviour of ES's declarative `ObjectParser`, which `bool`, `match_all` and `ids` are parsed
 * with (the other queries hand-write their token loops). It checks a field's JSON type before reading
 * it, wraps any failure of the read in `[<parser>] failed to parse field [<field>]` with the failure as
 * its cause, and names an unknown field with a "did you mean".
 */
import { badRequest, EsError } from '../../errors.ts';
import { tokenName } from '../request-values.ts';
import { didYouMean } from './suggest.ts';

/** The JSON tokens each declared field type takes (`ObjectParser.ValueType`). */
export const FLOAT = ['VALUE_NUMBER', 'VALUE_STRING'];
export const BOOLEAN = ['VALUE_BOOLEAN', 'VALUE_STRING'];
export const VALUE = ['VALUE_BOOLEAN', 'VALUE_NULL', 'VALUE_NUMBER', 'VALUE_STRING'];
export const STRING_ARRAY = ['START_ARRAY', 'VALUE_STRING'];
export const OBJECT_ARRAY_OR_NULL = ['START_OBJECT', 'START_ARRAY', 'VALUE_NULL'];

export function declaredField<T>(parser: string, field: string, value: unknown, accepts: readonly string[], read: () => T): T {
  const token = tokenName(value);
  if (!accepts.includes(token)) {
    throw badRequest('x_content_parse_exception', `[${parser}] ${field} doesn't support values of type: ${token}`);
  }
  try {
    return read();
  } catch (e) {
    if (e instanceof EsError) throw badRequest('x_content_parse_exception', `[${parser}] failed to parse field [${field}]`, undefined, e);
    throw e;
  }
}

export function unknownField(parser: string, field: string, known: readonly string[]): EsError {
  return badRequest('x_content_parse_exception', `[${parser}] unknown field [${field}]${didYouMean(field, known)}`);
}

/**
 * `match_all` and `ids` catch their ObjectParser's failures and rethrow them as a `parsing_exception`
 * with the same reason, the failure as its cause.
 */
export function asParsingException<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof EsError && e.type === 'x_content_parse_exception') throw badRequest('parsing_exception', e.reason, undefined, e);
    throw e;
  }
}
