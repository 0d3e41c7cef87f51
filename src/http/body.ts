/**
 * Request bodies read as ES reports them. Malformed JSON is a 400 `x_content_parse_exception` whose
 * reason starts with `[line:column]`, caused by a `json_parse_exception` carrying Jackson's detail.
 * Nothing here throws anything but EsError.
 *
 * @example
 * parseJsonBody('{"size": 10, m}')
 * // throws 400 x_content_parse_exception
 * //   "[1:14] Unexpected character ('m' (code 109)): was expecting double-quote to start field name"
 */
import { badRequest, illegalArgument, parsingError, type EsError } from '../engine/errors.ts';
import { isObject } from '../engine/patterns.ts';
import { finish, inPasses, type Steps } from '../engine/steps.ts';
import { findJsonSyntaxError, lineColumn } from './json-syntax.ts';
import { tokenName } from './request-values.ts';

/** Jackson's source description when it is told not to echo the input, as ES 8 configures it. */
const SOURCE = 'REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled)';

const isBlank = (text: string) => /^[ \t\n\r]*$/.test(text);

/** {@link isBlank} for one NDJSON line: most start with `{`, and need no pattern to tell. */
const blankLine = (line: string) => line.length === 0 || (line.charCodeAt(0) <= SPACE && isBlank(line));
const SPACE = 0x20;

/** The parsed body, or undefined when there is none (empty or only whitespace). */
export function parseJsonBody(text: string): unknown {
  return isBlank(text) ? undefined : parseJson(text, 1);
}

/** For APIs whose body is required and is an object. */
export function parseJsonObject(text: string): Record<string, unknown> {
  const value = parseJsonBody(text);
  if (value === undefined) throw parsingError('request body or source parameter is required');
  if (!isObject(value)) {
    const { line, column } = lineColumn(text, text.length - text.trimStart().length);
    const reason = `[${line}:${column}] Failed to parse object: expecting token of type [START_OBJECT] but found [${tokenName(value)}]`;
    throw badRequest('x_content_parse_exception', reason);
  }
  return value;
}

/** One NDJSON line: its value, and its text (a document's `_source` is stored as it was sent). */
export interface NdjsonLine {
  value: unknown;
  text: string;
}

/**
 * One JSON value per line, blank lines skipped, `\r\n` endings allowed. A body with no lines gives
 * an empty list (the API decides whether that is an error); any other body must end with `\n`.
 */
export function parseNdjson(text: string, api: NdjsonApi = 'bulk'): NdjsonLine[] {
  return finish(ndjsonLines(text, api));
}

/** The APIs that read NDJSON: each words a body without a final newline its own way. */
export type NdjsonApi = 'bulk' | 'msearch';
const UNTERMINATED: Record<NdjsonApi, string> = {
  bulk: 'The bulk request must be terminated by a newline [\\n]',
  // ES's msearch parser puts a real line feed between the brackets.
  msearch: 'The msearch request must be terminated by a newline [\n]',
};

/**
 * {@link parseNdjson} a few thousand lines per pass of the event loop, for a large `_bulk` (10,000
 * lines at once held it 13 ms); a body of fewer lines is parsed at once.
 */
export async function parseNdjsonInPasses(text: string, api: NdjsonApi = 'bulk'): Promise<NdjsonLine[]> {
  const steps = ndjsonLines(text, api);
  return text.length < AT_ONCE_CHARS ? finish(steps) : (await inPasses(steps))!;
}

const LINES_PER_STEP = 1000;
/** Bodies shorter than this (a millisecond or so of parsing) are parsed at once. */
const AT_ONCE_CHARS = 100_000;

function* ndjsonLines(text: string, api: NdjsonApi): Steps<NdjsonLine[]> {
  if (isBlank(text)) return [];
  if (!text.endsWith('\n')) throw illegalArgument(UNTERMINATED[api]);
  const lines: NdjsonLine[] = [];
  const raws = text.split('\n');
  for (let index = 0; index < raws.length; index++) {
    const raw = raws[index];
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!blankLine(line)) lines.push({ value: parseJson(line, index + 1), text: line });
    if (index % LINES_PER_STEP === LINES_PER_STEP - 1) yield;
  }
  return lines;
}

/** `lineNumber`: where `text` starts in the whole body, so an NDJSON error names its own line. */
function parseJson(text: string, lineNumber: number): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw malformed(text, lineNumber, e);
  }
}

function malformed(text: string, lineNumber: number, parseError: unknown): EsError {
  const message = parseError instanceof Error ? parseError.message : String(parseError);
  // The scanner and JSON.parse agree on what JSON is; the fallback only guards against a gap between them.
  const found = findJsonSyntaxError(text) ?? { offset: Number(/at position (\d+)/.exec(message)?.[1] ?? 0), message };
  const position = lineColumn(text, found.offset);
  const line = position.line + lineNumber - 1;
  const detail = `${found.message}\n at [Source: ${SOURCE}; line: ${line}, column: ${position.column}]`;
  const cause = badRequest('json_parse_exception', detail);
  return badRequest('x_content_parse_exception', `[${line}:${position.column}] ${found.message}`, {}, cause);
}
