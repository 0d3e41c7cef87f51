/**
 * Booleans as Elasticsearch reads them. ES has one rule for the words and reads it four ways, which
 * differ in what absent or empty text means and in the error a caller sees:
 *
 * - The words (`Booleans.parseBoolean(String)`, libs/core): exactly `true` or `false`, nothing else
 *   (no other case, no padding, no `1` or `on`); anything else is an IllegalArgumentException
 *   "Failed to parse value [x] as only [true] or [false] are allowed." ({@link parseBoolean}). The
 *   overload with a default gives the default for null and for text that is empty or only Java
 *   whitespace (its `hasText`) ({@link parseBooleanOr}). Settings (`Setting.boolSetting`) and node
 *   selectors (`master:true`) read by these two.
 * - A URL parameter (`RestRequest.paramAsBoolean(key, boolean)`): present and empty (`?flag`) is
 *   true, so that naming a flag turns it on; other text goes to the overload with a default, so blank
 *   text is the default ({@link booleanParam}). The `Boolean` overload, called with a null default
 *   for `version`, `explain`, `lenient`, `request_cache` and a few more, lacks the empty-is-true
 *   step: `?version` reads as not given ({@link optionalBooleanParam}).
 * - A value in a JSON body (`XContentParser.booleanValue()`, AbstractXContentParser): a JSON boolean,
 *   or a string read by the words' rule, where an empty string is false (the char[] overload's
 *   default); a value of any other JSON type fails inside the JSON parser, an error each caller
 *   words ({@link bodyBoolean}); `isBooleanValue()` asks whether a value is one without reading it
 *   ({@link isBooleanValue}). A boolean field's value in a document is read by the same accessor
 *   (BooleanFieldMapper.parseCreateField) ({@link documentBoolean}).
 * - A value of a parsed JSON map (mapping parameters, `_msearch` header lines, index options):
 *   `XContentMapValues.nodeBooleanValue` reads its Java `toString` by the words' rule (or, given a
 *   default, the overload with one), and wraps a failure in "Could not convert [name] to boolean"
 *   ({@link nodeBoolean}, {@link nodeBooleanOf}).
 *
 * @example
 * booleanParam('', false)         // true: `?flag`
 * optionalBooleanParam('')        // undefined: `?version` sets nothing
 * bodyBoolean('', wrongType)      // false
 * parseBoolean('TRUE')            // 400 illegal_argument_exception
 */
import { badRequest, illegalArgument, type EsError } from './errors.ts';
import { javaString } from './reindex/java-text.ts';

/** The words' error, as `Booleans.parseBoolean` throws it. */
function notABoolean(text: string): EsError {
  return illegalArgument(`Failed to parse value [${text}] as only [true] or [false] are allowed.`);
}

/** `Booleans.isBoolean(String)`: the text is one of the two words. */
export function isBoolean(text: string): boolean {
  return text === 'true' || text === 'false';
}

/** `Booleans.parseBoolean(String)`: `true` or `false`, else ES's IllegalArgumentException. */
export function parseBoolean(text: string): boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw notABoolean(text);
}

/** The characters Java's `Character.isWhitespace` takes (the Unicode separators but the non-breaking ones, and ASCII controls 9–13 and 28–31). */
const JAVA_BLANK = /^[\t\n\u000B\f\r\u001C-\u001F \u1680\u2000-\u2006\u2008-\u200A\u2028\u2029\u205F\u3000]*$/;

/** Whether the text has any character that is not Java whitespace (`Strings.hasText`). */
export function hasText(text: string): boolean {
  return !JAVA_BLANK.test(text);
}

/** `Booleans.parseBoolean(String, default)`: absent, empty or blank text is the default. */
export function parseBooleanOr<T>(text: string | undefined, fallback: T): boolean | T {
  return text === undefined || !hasText(text) ? fallback : parseBoolean(text);
}

/** A URL parameter, as `RestRequest.paramAsBoolean(name, fallback)`: absent or blank is the fallback, present and empty is true. */
export function booleanParam(value: string | undefined, fallback: boolean): boolean {
  return value === '' || parseBooleanOr(value, fallback);
}

/** A URL parameter ES reads as `paramAsBoolean(name, (Boolean) null)`: absent, empty or blank is undefined (not given). */
export function optionalBooleanParam(value: string | undefined): boolean | undefined {
  return parseBooleanOr(value, undefined);
}

/**
 * A value in a JSON body, as `XContentParser.booleanValue()` reads it: a JSON boolean, or a string by
 * {@link parseBoolean} with the empty string false. `wrongType` is the caller's error for a value of
 * another JSON type (ES's JSON parser fails there, at a position deeppage does not know).
 */
export function bodyBoolean(value: unknown, wrongType: () => EsError): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') throw wrongType();
  return value !== '' && parseBoolean(value);
}

/** `XContentParser.isBooleanValue()`: a JSON boolean, or a string that is one of the words (the empty string is not). */
export function isBooleanValue(value: unknown): value is boolean | string {
  return typeof value === 'boolean' || (typeof value === 'string' && isBoolean(value));
}

const NOT_READ = illegalArgument('not a boolean');

/** A boolean field's value in a document, read as a body value ({@link bodyBoolean}); undefined where that fails (the mapper names the field). */
export function documentBoolean(value: unknown): boolean | undefined {
  try {
    return bodyBoolean(value, () => NOT_READ);
  } catch {
    return undefined;
  }
}

/** What `XContentMapValues.nodeBooleanValue` reads a map value as, or undefined where it refuses it (for callers with errors of their own). */
export function nodeBooleanOf(value: unknown): boolean | undefined {
  const text = value === null || value === undefined ? undefined : javaString(value);
  return text !== undefined && isBoolean(text) ? text === 'true' : undefined;
}

/**
 * A map value, as `XContentMapValues.nodeBooleanValue(value, name[, fallback])` reads it: its Java
 * text by {@link parseBoolean}, or, given a fallback, by {@link parseBooleanOr} (null is the
 * fallback then). A failure is "Could not convert [name] to boolean", caused by the words' error.
 */
export function nodeBoolean(value: unknown, name: string, fallback?: boolean): boolean {
  const text = value === null || value === undefined ? undefined : javaString(value);
  try {
    return fallback === undefined ? parseBoolean(text ?? 'null') : parseBooleanOr(text, fallback);
  } catch (cause) {
    throw badRequest('illegal_argument_exception', `Could not convert [${name}] to boolean`, undefined, cause as EsError);
  }
}
