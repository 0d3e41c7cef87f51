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
import { badRequest, illegalArgument, type EsError } from '../engine/errors.ts';
import { finish, inPasses, type Steps } from '../engine/steps.ts';
import { flatJson, startsAsAction } from './flat-json.ts';
import { findJsonSyntaxError, lineColumn } from './json-syntax.ts';

/** Jackson's source description when it is told not to echo the input, as ES 8 configures it. */
const SOURCE = 'REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled)';

const isBlank = (text: string) => /^[ \t\n\r]*$/.test(text);
const SPACE = 0x20;

/** The parsed body, or undefined when there is none (empty or only whitespace). */
export function parseJsonBody(text: string): unknown {
  return isBlank(text) ? undefined : parseJson(text, 1);
}

/** One NDJSON line: its value, and its bytes (a document's `_source` is stored as the bytes it was sent in). */
export class NdjsonLine {
  constructor(
    readonly value: unknown,
    private readonly body: Buffer,
    private readonly start: number,
    private readonly end: number,
  ) {}

  /** A view of the body, made when asked for (most lines are read for their value only). */
  get bytes(): Buffer {
    return this.body.subarray(this.start, this.end);
  }
}

/**
 * One JSON value per line, blank lines skipped, `\r\n` endings allowed. A body with no lines gives
 * an empty list (the API decides whether that is an error); any other body must end with `\n`.
 * Bytes are UTF-8 (request-body.ts replaces what is not); text is taken as its UTF-8.
 */
export function parseNdjson(body: Uint8Array | string, api: NdjsonApi = 'bulk'): NdjsonLine[] {
  return finish(ndjsonLines(bytesOf(body), api));
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
export async function parseNdjsonInPasses(body: Uint8Array | string, api: NdjsonApi = 'bulk'): Promise<NdjsonLine[]> {
  const bytes = bytesOf(body);
  const steps = ndjsonLines(bytes, api);
  return bytes.length < AT_ONCE_BYTES ? finish(steps) : (await inPasses(steps))!;
}

const LINES_PER_STEP = 1000;
/** Bodies shorter than this (a millisecond or so of parsing) are parsed at once. */
const AT_ONCE_BYTES = 100_000;
const LF = 0x0a;
const CR = 0x0d;

const bytesOf = (body: Uint8Array | string): Buffer => (typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength));

/**
 * Lines are found in the bytes, and each is decoded only for the parser: a line's bytes are kept
 * as they came (a view of the body), where splitting decoded text kept each line as a string to be
 * encoded again when stored.
 */
function* ndjsonLines(body: Buffer, api: NdjsonApi): Steps<NdjsonLine[]> {
  if (blankBytes(body, 0, body.length)) return [];
  if (body[body.length - 1] !== LF) throw illegalArgument(UNTERMINATED[api]);
  const lines: NdjsonLine[] = [];
  for (let start = 0, number = 1, newline = body.indexOf(LF); newline >= 0; start = newline + 1, newline = body.indexOf(LF, start), number++) {
    const end = newline > start && body[newline - 1] === CR ? newline - 1 : newline;
    // Most lines start with `{`, and need no scan to tell they are not blank.
    if (end > start && (body[start] > SPACE || !blankBytes(body, start, end))) {
      // Action lines are read from their bytes where they are plain (flat-json.ts); the rest by JSON.parse.
      const value = (startsAsAction(body, start, end) && flatJson(body, start, end)) || parseJson(body.toString('utf8', start, end), number);
      lines.push(new NdjsonLine(value, body, start, end));
    }
    if (number % LINES_PER_STEP === 0) yield;
  }
  return lines;
}

/** Whether bytes [start, end) are only JSON whitespace. */
function blankBytes(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = bytes[i];
    if (byte !== SPACE && byte !== LF && byte !== CR && byte !== TAB) return false;
  }
  return true;
}
const TAB = 0x09;

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
