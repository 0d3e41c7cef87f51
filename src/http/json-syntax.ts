/**
 * Where a text stops being JSON, and why, worded as Jackson (the parser inside ES) words it, so
 * users see the messages they know from ES. It runs only after `JSON.parse` has failed: Node 20's
 * own messages often carry no position (`Unexpected token 'm', "{m}" is not valid JSON`).
 *
 * @example
 * findJsonSyntaxError('{"size": 10, m}')
 * // { offset: 13, message: "Unexpected character ('m' (code 109)): was expecting double-quote to start field name" }
 */

export interface JsonSyntaxError {
  /** UTF-16 offset of the offending character; the text's length when the input ended too soon. */
  offset: number;
  message: string;
}

/** 1-based, as ES prints `[line:column]`; lines end at `\n`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** The first syntax error in `text`, or undefined if it is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  try {
    scanDocument(text);
    return undefined;
  } catch (e) {
    if (e instanceof Fault) return { offset: e.offset, message: e.message };
    throw e;
  }
}

class Fault {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

const VALUE_KINDS = "(JSON String, Number, Array, Object or token 'null', 'true' or 'false')";
const VALUE_EXPECTED = `expected a valid value ${VALUE_KINDS}`;

type Container = 'Object' | 'Array';
/** What may come next: the states of a JSON grammar without recursion, so nesting depth is unbounded. */
type Expecting = 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'commaOrClose';

function scanDocument(text: string): void {
  const open: Container[] = [];
  let expecting: Expecting = 'value';
  let i = 0;
  for (;;) {
    i = skipSpace(text, i);
    const inside = open.at(-1);
    if (i === text.length) {
      if (expecting === 'commaOrClose' && inside === undefined) return;
      throw new Fault(i, endOfInput(expecting, inside));
    }
    const c = text[i];
    if (expecting === 'commaOrClose') {
      if (inside === undefined) throw unexpected(text, i, 'expected end of input after the JSON value');
      const close = inside === 'Object' ? '}' : ']';
      if (c === ',') {
        expecting = inside === 'Object' ? 'key' : 'value';
        i++;
      } else if (c === close) {
        open.pop();
        i++;
      } else if (c === '}' || c === ']') {
        throw new Fault(i, `Unexpected close marker '${c}': expected '${close}'`);
      } else {
        throw unexpected(text, i, `was expecting comma to separate ${inside} entries`);
      }
    } else if ((expecting === 'keyOrClose' && c === '}') || (expecting === 'valueOrClose' && c === ']')) {
      open.pop();
      expecting = 'commaOrClose';
      i++;
    } else if (expecting === 'key' || expecting === 'keyOrClose') {
      if (c !== '"') throw unexpected(text, i, 'was expecting double-quote to start field name');
      i = skipSpace(text, scanString(text, i));
      if (i === text.length) throw new Fault(i, 'Unexpected end-of-input within/between Object entries');
      if (text[i] !== ':') throw unexpected(text, i, 'was expecting a colon to separate field name and value');
      expecting = 'value';
      i++;
    } else if (c === '{' || c === '[') {
      open.push(c === '{' ? 'Object' : 'Array');
      expecting = c === '{' ? 'keyOrClose' : 'valueOrClose';
      i++;
    } else {
      i = scanScalar(text, i);
      expecting = 'commaOrClose';
    }
  }
}

function endOfInput(expecting: Expecting, inside: Container | undefined): string {
  if (inside === undefined) return 'No content to map due to end-of-input';
  if (expecting === 'commaOrClose') return `Unexpected end-of-input: expected close marker for ${inside}`;
  return `Unexpected end-of-input within/between ${inside} entries`;
}

const LITERAL = /[\p{L}\p{N}_$]+/uy;

function scanScalar(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return scanString(text, i);
  if (c === '-' || isDigit(c)) return scanNumber(text, i);
  LITERAL.lastIndex = i;
  const token = LITERAL.exec(text)?.[0];
  if (token === undefined) throw unexpected(text, i, VALUE_EXPECTED);
  if (token === 'true' || token === 'false' || token === 'null') return i + token.length;
  throw new Fault(i, `Unrecognized token '${token}': was expecting ${VALUE_KINDS}`);
}

/** `i` is at the opening quote; returns the offset after the closing one. */
function scanString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const code = text.charCodeAt(j);
    if (code === 0x22) return j + 1;
    if (code < 0x20) {
      throw new Fault(j, `Illegal unquoted character (${charDescription(text, j)}): has to be escaped using backslash to be included in string value`);
    }
    if (code !== 0x5c) continue;
    const escape = text[++j];
    if (escape === undefined) break;
    if (escape === 'u') {
      for (let k = 0; k < 4; k++) {
        if (++j === text.length) break;
        if (!/[0-9a-fA-F]/.test(text[j])) throw unexpected(text, j, 'expected a hex-digit for character escape sequence');
      }
    } else if (!'"\\/bfnrt'.includes(escape)) {
      throw new Fault(j, `Unrecognized character escape ${charDescription(text, j)}`);
    }
  }
  throw new Fault(text.length, 'Unexpected end-of-input: was expecting closing quote for a string value');
}

function scanNumber(text: string, i: number): number {
  let j = i;
  const digits = (after: string) => {
    if (j === text.length) throw new Fault(j, 'Unexpected end-of-input in a Number value');
    if (!isDigit(text[j])) throw unexpected(text, j, after, ' in numeric value');
    while (isDigit(text[j])) j++;
  };
  if (text[j] === '-') j++;
  if (text[j] === '0' && isDigit(text[j + 1])) throw new Fault(j, 'Invalid numeric value: Leading zeroes not allowed');
  digits('expected digit (0-9) to follow minus sign, for valid numeric value');
  if (text[j] === '.') {
    j++;
    digits('Decimal point not followed by a digit');
  }
  if (text[j] === 'e' || text[j] === 'E') {
    j++;
    if (text[j] === '+' || text[j] === '-') j++;
    digits('Exponent indicator not followed by a digit');
  }
  return j;
}

function unexpected(text: string, i: number, why: string, where = ''): Fault {
  return new Fault(i, `Unexpected character (${charDescription(text, i)})${where}: ${why}`);
}

/** Jackson's rendering of a character: `'m' (code 109)`, `(CTRL-CHAR, code 10)`, `'é' (code 233)`. */
function charDescription(text: string, i: number): string {
  const code = text.codePointAt(i)!;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return `(CTRL-CHAR, code ${code})`;
  const char = String.fromCodePoint(code);
  return code > 0xff ? `'${char}' (code ${code} / 0x${code.toString(16)})` : `'${char}' (code ${code})`;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}
