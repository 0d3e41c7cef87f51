/**
 * A fast path for the small JSON objects a `_bulk` or `_msearch` body gives every other line: the
 * action and metadata lines (`{"index":{"_index":"items","_id":"i7"}}`). It reads an object whose
 * values are plain scalars or objects of plain scalars, straight from the line's bytes, and gives
 * exactly what `JSON.parse` gives for it; for anything else it gives up (undefined) and the line
 * goes to `JSON.parse`.
 *
 * Why: `JSON.parse` internalizes every short string value (about ten characters or fewer, by V8's
 * version): it makes them unique in its string table, as it does property names. So a bulk load of
 * a million documents added a million ids to that table, and parsing an action line cost more than
 * parsing its document.
 *
 * Plain here means: strings of printable ASCII with no escape (`"` and `\` excluded), integers of
 * at most fifteen digits (exact as doubles), `true`, `false` and `null`. Names follow the same rule
 * for strings, and `__proto__` (which `JSON.parse` makes an own property, and assignment would not)
 * gives up too.
 *
 * @example
 * const bytes = Buffer.from('{"index":{"_id":"1"}}');
 * flatJson(bytes, 0, bytes.length); // { index: { _id: '1' } }
 */
export function flatJson(bytes: Buffer, start: number, end: number): Record<string, unknown> | undefined {
  const reader = new FlatReader(bytes, end);
  reader.at = start;
  const value = reader.object(1);
  if (value === undefined) return undefined;
  reader.space();
  return reader.at === end ? value : undefined;
}

/** Objects nested deeper than this give up. */
const MAX_DEPTH = 2;
/** Integers of more digits give up: up to fifteen, every one is exact as a double. */
const MAX_DIGITS = 15;

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const LOWER_T = 0x74;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;

/**
 * Names action and metadata lines use, made once: a name read from the bytes is one of these when
 * its bytes match (no new string, and the object's property is set by a name V8 already knows).
 */
const KNOWN_NAMES = [
  'index', 'create', 'update', 'delete', '_index', '_id', 'routing', 'version', 'version_type', 'if_seq_no',
  'if_primary_term', 'pipeline', 'require_alias', 'retry_on_conflict', 'dynamic_templates', '_source', 'preference',
];
/** The known names by length, each with its bytes. */
const NAMES_BY_LENGTH: { name: string; bytes: Uint8Array }[][] = [];
for (const name of KNOWN_NAMES) (NAMES_BY_LENGTH[name.length] ??= []).push({ name, bytes: Buffer.from(name, 'latin1') });

/** The known name whose bytes are `bytes[start, end)`, if any. */
function knownName(bytes: Buffer, start: number, end: number): string | undefined {
  const candidates = NAMES_BY_LENGTH[end - start];
  if (candidates === undefined) return undefined;
  next: for (const { name, bytes: known } of candidates) {
    for (let i = 0; i < known.length; i++) if (bytes[start + i] !== known[i]) continue next;
    return name;
  }
  return undefined;
}

/**
 * Whether a line starts as a bulk or msearch action line does: `{"index"`, `{"create"`, `{"update"`
 * or `{"delete"`. Those lines are the ones worth trying {@link flatJson} on before `JSON.parse`; a
 * document's line seldom starts so, and giving up on one costs a few bytes' look.
 */
export function startsAsAction(bytes: Buffer, start: number, end: number): boolean {
  if (bytes[start] !== OPEN || bytes[start + 1] !== QUOTE) return false;
  const first = start + 2;
  const quote = bytes.indexOf(QUOTE, first);
  if (quote < 0 || quote >= end) return false;
  const name = knownName(bytes, first, quote);
  return name === 'index' || name === 'create' || name === 'update' || name === 'delete';
}

/** Buffer's own slice decoder: `toString('latin1', …)` checks its arguments first and costs twice as much. */
const latin1 = (bytes: Buffer, start: number, end: number): string => (bytes as unknown as { latin1Slice(start: number, end: number): string }).latin1Slice(start, end);

/** Gives up where the value is not plain (see the module's comment). */
const GIVE_UP = Symbol('give up');

class FlatReader {
  at = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly end: number,
  ) {}

  space(): void {
    const { bytes, end } = this;
    let at = this.at;
    while (at < end) {
      const byte = bytes[at];
      if (byte !== SPACE && byte !== TAB && byte !== LF && byte !== CR) break;
      at++;
    }
    this.at = at;
  }

  /** An object at `at` (after whitespace), or undefined to give up. */
  object(depth: number): Record<string, unknown> | undefined {
    this.space();
    if (this.bytes[this.at] !== OPEN || this.at >= this.end) return undefined;
    this.at++;
    const out: Record<string, unknown> = {};
    this.space();
    if (this.bytes[this.at] === CLOSE && this.at < this.end) {
      this.at++;
      return out;
    }
    for (;;) {
      this.space();
      const name = this.string(true);
      if (name === undefined || name === '__proto__') return undefined;
      this.space();
      if (this.bytes[this.at] !== COLON || this.at >= this.end) return undefined;
      this.at++;
      this.space();
      const value = this.bytes[this.at] === OPEN ? (depth < MAX_DEPTH ? this.object(depth + 1) : undefined) : this.scalar();
      if (value === undefined || value === GIVE_UP) return undefined;
      out[name] = value;
      this.space();
      if (this.at >= this.end) return undefined;
      const next = this.bytes[this.at++];
      if (next === CLOSE) return out;
      if (next !== COMMA) return undefined;
    }
  }

  /** A plain string at `at`, or undefined to give up; `name`: a member's name, which may be a known one. */
  string(name = false): string | undefined {
    const { bytes, end } = this;
    if (bytes[this.at] !== QUOTE || this.at >= end) return undefined;
    const first = this.at + 1;
    for (let at = first; at < end; at++) {
      const byte = bytes[at];
      if (byte === QUOTE) {
        this.at = at + 1;
        return (name && knownName(bytes, first, at)) || latin1(bytes, first, at);
      }
      if (byte < SPACE || byte >= 0x7f || byte === BACKSLASH) return undefined;
    }
    return undefined;
  }

  /** A plain scalar at `at`: the value (null included), or {@link GIVE_UP}. */
  scalar(): string | number | boolean | null | typeof GIVE_UP {
    if (this.at >= this.end) return GIVE_UP;
    const byte = this.bytes[this.at];
    if (byte === QUOTE) return this.string() ?? GIVE_UP;
    if (byte === MINUS || (byte >= ZERO && byte <= NINE)) return this.integer();
    if (byte === LOWER_T) return this.word('true', true);
    if (byte === LOWER_F) return this.word('false', false);
    if (byte === LOWER_N) return this.word('null', null);
    return GIVE_UP;
  }

  /** An integer in JSON's syntax (no leading zero) of at most {@link MAX_DIGITS} digits; fractions and exponents give up. */
  integer(): number | typeof GIVE_UP {
    const { bytes, end } = this;
    let at = this.at;
    const negative = bytes[at] === MINUS;
    if (negative) at++;
    const first = at;
    let value = 0;
    while (at < end && bytes[at] >= ZERO && bytes[at] <= NINE) value = value * 10 + (bytes[at++] - ZERO);
    const digits = at - first;
    if (digits === 0 || digits > MAX_DIGITS || (digits > 1 && bytes[first] === ZERO)) return GIVE_UP;
    // A fraction or an exponent: JSON.parse reads those.
    if (at < end && (bytes[at] === 0x2e || bytes[at] === 0x65 || bytes[at] === 0x45)) return GIVE_UP;
    this.at = at;
    return negative ? -value : value;
  }

  word<T>(text: string, value: T): T | typeof GIVE_UP {
    const { bytes, end } = this;
    if (this.at + text.length > end) return GIVE_UP;
    for (let i = 0; i < text.length; i++) if (bytes[this.at + i] !== text.charCodeAt(i)) return GIVE_UP;
    this.at += text.length;
    return value;
  }
}
