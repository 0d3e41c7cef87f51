/**
 * A URI search's `q=` parsed as Elasticsearch's `query_string` parses it: Lucene's classic
 * QueryParser grammar (`QueryParser.jj`, Lucene 9) with Elasticsearch's additions from
 * `QueryStringQueryParser` (`_exists_:field`, `field:>10`). Mappings are not known here: a clause
 * keeps the field it names, or none, and the engine resolves fields and analyzes text per index.
 *
 * What Lucene decides while parsing is decided here the same way: the occurrence of each clause
 * (`AND`/`OR`/`NOT`/`+`/`-` without precedence, QueryParserBase.addClause), a group of one clause
 * without a modifier being that clause, boosts multiplied down, escapes removed. Text is kept as
 * written, for the engine to analyze per field (and to lowercase wildcards on text fields).
 *
 * Text Lucene rejects gives `{ syntaxError }` with Lucene's message. What deeppage cannot run
 * throws a 400 `illegal_argument_exception` instead: regular expressions (`/ab+c/`) and fuzzy
 * terms (`quikc~1`), once the whole text is known to parse (a syntax error anywhere wins, as it
 * would in ES), and groups nested more than MAX_DEPTH deep, at once.
 *
 * @example
 * parseQueryString('title:(quick OR fox*) -"lazy dog"~2', { defaultOperator: 'or' }).root
 * // { kind: 'bool', boost: 1, clauses: [
 * //   { occur: 'should', node: { kind: 'bool', boost: 1, clauses: [
 * //     { occur: 'should', node: { kind: 'term', field: 'title', text: 'quick', boost: 1 } },
 * //     { occur: 'should', node: { kind: 'wildcard', field: 'title', pattern: 'fox*', boost: 1 } }] } },
 * //   { occur: 'must_not', node: { kind: 'phrase', field: undefined, text: 'lazy dog', slop: 2, boost: 1 } }] }
 */
import { illegalArgument } from '../errors.ts';
import type { QsNode, QueryStringQuery } from '../query/query.ts';

export interface QueryStringOptions {
  /** `df`; absent means the index's default fields (`*`, every text-searchable field). */
  defaultFields?: string[];
  defaultOperator: 'or' | 'and';
  lenient?: boolean;
}

export function parseQueryString(text: string, options: QueryStringOptions): QueryStringQuery {
  const given = {
    kind: 'query_string' as const,
    text,
    defaultOperator: options.defaultOperator,
    boost: 1,
    ...(options.defaultFields === undefined ? {} : { defaultFields: options.defaultFields }),
    ...(options.lenient === undefined ? {} : { lenient: options.lenient }),
  };
  // ES answers a blank text (Java's trim: nothing above U+0020) before Lucene sees it, with a query
  // matching nothing ("Matching no documents because no terms present"); a bool without clauses
  // matches nothing too, so the engine needs no case of its own.
  if (isBlank(text)) return { ...given, root: { kind: 'bool', clauses: [], boost: 1 } };
  const parser = new Parser(text, options);
  let root: QsNode;
  try {
    root = parser.parse();
  } catch (e) {
    if (e instanceof LuceneParseError) return { ...given, syntaxError: `Cannot parse '${text}': ${e.message}` };
    throw e;
  }
  if (parser.unsupported) throw illegalArgument(parser.unsupported);
  return { ...given, root };
}

const isBlank = (text: string) => [...text].every((c) => c <= ' ');

/** Lucene's ParseException or TokenMgrError: the message ES puts after `Cannot parse '<text>': `. */
class LuceneParseError extends Error {}

// Token kinds numbered as Lucene's QueryParserConstants: the expected-token list is sorted by them.
const EOF = 0, AND = 8, OR = 9, NOT = 10, PLUS = 11, MINUS = 12, BAREOPER = 13, LPAREN = 14, RPAREN = 15;
const COLON = 16, STAR = 17, CARAT = 18, QUOTED = 19, TERM = 20, FUZZY_SLOP = 21, PREFIXTERM = 22;
const WILDTERM = 23, REGEXPTERM = 24, RANGEIN_START = 25, RANGEEX_START = 26, NUMBER = 27, RANGE_TO = 28;
const RANGEIN_END = 29, RANGEEX_END = 30, RANGE_QUOTED = 31, RANGE_GOOP = 32;

const TOKEN_IMAGE: Record<number, string> = {
  [EOF]: '<EOF>', [AND]: '<AND>', [OR]: '<OR>', [NOT]: '<NOT>', [PLUS]: '"+"', [MINUS]: '"-"',
  [BAREOPER]: '<BAREOPER>', [LPAREN]: '"("', [RPAREN]: '")"', [COLON]: '":"', [STAR]: '"*"', [CARAT]: '"^"',
  [QUOTED]: '<QUOTED>', [TERM]: '<TERM>', [FUZZY_SLOP]: '<FUZZY_SLOP>', [PREFIXTERM]: '<PREFIXTERM>',
  [WILDTERM]: '<WILDTERM>', [REGEXPTERM]: '<REGEXPTERM>', [RANGEIN_START]: '"["', [RANGEEX_START]: '"{"',
  [NUMBER]: '<NUMBER>', [RANGE_TO]: '"TO"', [RANGEIN_END]: '"]"', [RANGEEX_END]: '"}"',
  [RANGE_QUOTED]: '<RANGE_QUOTED>', [RANGE_GOOP]: '<RANGE_GOOP>',
};

const MODIFIERS = [PLUS, MINUS, NOT];
const TERM_FIRST = [BAREOPER, STAR, QUOTED, TERM, PREFIXTERM, WILDTERM, REGEXPTERM, RANGEIN_START, RANGEEX_START, NUMBER];
const CLAUSE_FIRST = [LPAREN, ...TERM_FIRST];
const QUERY_FIRST = [...MODIFIERS, ...CLAUSE_FIRST];
const QUERY_NEXT = [AND, OR, ...QUERY_FIRST];
const RANGE_BOUND = [RANGE_GOOP, RANGE_QUOTED, RANGE_TO];
/** Tokens after which a bare word is not joined to the words before it (QueryParser.disallowedPostMultiTerm). */
const ENDS_MULTI_TERM = new Set([COLON, STAR, FUZZY_SLOP, CARAT, AND, OR]);

type Token = { kind: number; image: string; /** UTF-16 offset, Lucene's column. */ begin: number };

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\u3000']);
/** Characters that neither start nor continue a term unless escaped (`+` and `-` may continue one). */
const NOT_TERM_START = new Set([...WHITESPACE, ...'+-!():^[]"{}~*?\\/']);
const SINGLE_CHARACTER_TOKENS = new Map([['(', LPAREN], [')', RPAREN], [':', COLON], ['^', CARAT], ['[', RANGEIN_START], ['{', RANGEEX_START]]);
/** Words that are operators rather than terms (a tie between two kinds goes to the lower). */
const OPERATOR_WORDS = new Map([['AND', AND], ['&&', AND], ['OR', OR], ['||', OR], ['NOT', NOT]]);
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/**
 * Lucene's token manager: the longest match wins, the lower kind on a tie. States as in the
 * grammar: after `^` only a number (no whitespace), inside `[`/`{` range bounds.
 */
class Lexer {
  private pos = 0;
  private state: 'default' | 'boost' | 'range' = 'default';

  constructor(private readonly text: string) {}

  next(): Token {
    for (;;) {
      if (this.pos >= this.text.length) return { kind: EOF, image: '', begin: this.text.length };
      const token = this.state === 'default' ? this.inDefault() : this.state === 'boost' ? this.inBoost() : this.inRange();
      if (token) return token;
    }
  }

  private take(kind: number, end: number): Token {
    const token = { kind, image: this.text.slice(this.pos, end), begin: this.pos };
    this.pos = end;
    if (kind === CARAT) this.state = 'boost';
    else if (kind === RANGEIN_START || kind === RANGEEX_START) this.state = 'range';
    else if (kind === NUMBER || kind === RANGEIN_END || kind === RANGEEX_END) this.state = 'default';
    return token;
  }

  /** Null for skipped whitespace. */
  private inDefault(): Token | null {
    const { text, pos } = this;
    const c = text[pos];
    if (WHITESPACE.has(c)) return this.skip();
    if (c === '+' || c === '-' || c === '!') {
      if (WHITESPACE.has(text[pos + 1])) return this.take(BAREOPER, pos + 2);
      return this.take(c === '+' ? PLUS : c === '-' ? MINUS : NOT, pos + 1);
    }
    const single = SINGLE_CHARACTER_TOKENS.get(c);
    if (single !== undefined) return this.take(single, pos + 1);
    if (c === '"') return this.take(QUOTED, this.quotedEnd());
    if (c === '~') return this.take(FUZZY_SLOP, this.wordEnd(pos + 1, false));
    if (c === '/') {
      const end = delimitedEnd(text, pos, '/', 0);
      if (end < 0) throw this.lexicalError(text.length);
      return this.take(REGEXPTERM, end);
    }
    return this.word();
  }

  private skip(): null {
    this.pos++;
    return null;
  }

  /** `"…"` with `\` escaping any character. */
  private quotedEnd(): number {
    const { text } = this;
    for (let i = this.pos + 1; i < text.length; i++) {
      if (text[i] === '"') return i + 1;
      if (text[i] === '\\') i++;
    }
    throw this.lexicalError(text.length);
  }

  /** Length of the term-character unit at i (an escape and its character are one), 0 if none. */
  private unit(i: number, first: boolean, wild: boolean): number {
    const c = this.text[i];
    if (c === undefined) return 0;
    if (c === '\\') return i + 1 < this.text.length ? 2 : 0;
    if (c === '*' || c === '?') return wild ? 1 : 0;
    if (c === '+' || c === '-') return first ? 0 : 1;
    return NOT_TERM_START.has(c) ? 0 : 1;
  }

  private wordEnd(from: number, wild: boolean): number {
    let i = from;
    for (let n; (n = this.unit(i, false, wild)) > 0; ) i += n;
    return i;
  }

  /**
   * A run of term characters, `*` and `?`: TERM (or AND/OR/NOT) without wildcards, STAR alone,
   * PREFIXTERM when its one wildcard is a trailing `*`, else WILDTERM.
   */
  private word(): Token {
    const { text, pos } = this;
    const first = this.unit(pos, true, true);
    if (first === 0) throw this.lexicalError(pos + 1);
    const wildcards: number[] = [];
    let end = pos;
    for (let n = first; n > 0; n = this.unit(end, false, true)) {
      if (n === 1 && (text[end] === '*' || text[end] === '?')) wildcards.push(end);
      end += n;
    }
    const image = text.slice(pos, end);
    if (wildcards.length === 0) {
      return this.take(OPERATOR_WORDS.get(image) ?? TERM, end);
    }
    if (image === '*') return this.take(STAR, end);
    const prefix = wildcards.length === 1 && wildcards[0] === end - 1 && text[end - 1] === '*' && wildcards[0] !== pos;
    return this.take(prefix ? PREFIXTERM : WILDTERM, end);
  }

  private inBoost(): Token {
    const { text, pos } = this;
    if (!isDigit(text[pos])) throw this.lexicalError(pos + 1);
    let end = pos;
    while (isDigit(text[end])) end++;
    if (text[end] === '.' && isDigit(text[end + 1])) for (end++; isDigit(text[end]); ) end++;
    return this.take(NUMBER, end);
  }

  /** Bounds are any run without space, `]` or `}` (RANGE_GOOP), `TO`, or quoted. */
  private inRange(): Token | null {
    const { text, pos } = this;
    const c = text[pos];
    if (c === ']') return this.take(RANGEIN_END, pos + 1);
    if (c === '}') return this.take(RANGEEX_END, pos + 1);
    let goop = pos;
    while (goop < text.length && text[goop] !== ' ' && text[goop] !== ']' && text[goop] !== '}') goop++;
    // Whitespace is skipped one character at a time, and loses to a longer RANGE_GOOP.
    if (c === ' ' || (WHITESPACE.has(c) && goop === pos + 1)) return this.skip();
    const quoted = c === '"' ? delimitedEnd(text, pos, '"', 1) : -1;
    const to = text.startsWith('TO', pos) ? pos + 2 : -1;
    if (to >= quoted && to >= goop) return this.take(RANGE_TO, to);
    return quoted >= goop ? this.take(RANGE_QUOTED, quoted) : this.take(RANGE_GOOP, goop);
  }

  /**
   * JavaCC's lexical error, for a token that failed after reading up to `read` (exclusive): at the
   * end of the text it reports <EOF> one column on, else the character it could not take.
   */
  private lexicalError(read: number): LuceneParseError {
    const { text, pos } = this;
    if (read >= text.length) {
      const last = text[read - 1];
      const [line, column] = last === '\n' || last === '\r' ? [2, 0] : [1, read + 1];
      const after = read - pos <= 1 ? '' : text.slice(pos, read);
      return new LuceneParseError(`Lexical error at line ${line}, column ${column}.  Encountered: <EOF> after : "${javaEscape(after)}"`);
    }
    const c = text[read - 1];
    const after = read - pos <= 1 ? '' : text.slice(pos, read - 1);
    return new LuceneParseError(`Lexical error at line 1, column ${read}.  Encountered: "${javaEscape(c)}" (${c.charCodeAt(0)}), after : "${javaEscape(after)}"`);
  }
}

/**
 * End (exclusive) of the longest `<d>…<d>` at `from` whose inside has at least `minInside`
 * characters and may hold `<d>` only as `\<d>` (REGEXPTERM, RANGE_QUOTED); -1 if none.
 */
function delimitedEnd(text: string, from: number, d: string, minInside: number): number {
  let end = -1;
  for (let i = from + 1; i < text.length; i++) {
    if (text[i] !== d) continue;
    if (i - from - 1 >= minInside) end = i + 1;
    if (!(i - 1 > from && text[i - 1] === '\\')) break;
  }
  return end;
}

/**
 * Groups nest by recursion; past a few thousand levels the stack would overflow. Lucene has no
 * limit of its own, but ES's 4 kB request line keeps `q` far below this.
 */
const MAX_DEPTH = 1000;

type Occur = 'must' | 'should' | 'must_not';
type Clause = { occur: Occur; node: QsNode };
type Conjunction = 'none' | 'and' | 'or';
type Modifier = 'none' | 'required' | 'prohibited';

/**
 * Recursive descent over QueryParser.jj's productions, with its lookaheads. It also keeps what
 * JavaCC keeps to report a failure: every token kind the grammar tried since the last token was
 * consumed, and the syntactic lookaheads made there.
 */
class Parser {
  /** The first construct deeppage cannot run, refused once the whole text parses. */
  unsupported: string | undefined;
  private readonly lexer: Lexer;
  private readonly ahead: Token[] = [];
  private readonly and: boolean;
  /**
   * Lucene's default field, which Lucene passes down as the field of every clause that names none:
   * `df`, `*` for all fields, or null for several fields. It decides `_exists_` and `>10`.
   */
  private readonly defaultField: string | null;
  private depth = 0;
  private expected = new Set<number>();
  private lookaheads: { order: number; scanned: [kind: number, position: number][] }[] = [];

  constructor(text: string, options: QueryStringOptions) {
    this.lexer = new Lexer(text);
    this.and = options.defaultOperator === 'and';
    const fields = options.defaultFields;
    this.defaultField = !fields || fields.length === 0 ? '*' : fields.length === 1 ? fields[0] : null;
  }

  parse(): QsNode {
    const root = this.query(undefined);
    this.expect(EOF);
    return root;
  }

  // Query ::= ( MultiTerm | Modifiers Clause ) ( MultiTerm | Conjunction Modifiers Clause )*
  private query(field: string | undefined): QsNode {
    const clauses: Clause[] = [];
    let first: QsNode | undefined;
    if (this.multiTermAhead(1)) first = this.multiTerm(field, clauses);
    else {
      this.require(QUERY_FIRST);
      const modifier = this.modifier();
      first = this.clause(field);
      this.addClause(clauses, 'none', modifier, first);
      if (modifier !== 'none') first = undefined;
    }
    for (;;) {
      if (this.multiTermAhead(2)) {
        this.multiTerm(field, clauses);
        continue;
      }
      if (!this.at(QUERY_NEXT)) break;
      this.multiTermAhead(3);
      const conjunction = this.conjunction();
      const modifier = this.modifier();
      this.addClause(clauses, conjunction, modifier, this.clause(field));
    }
    return clauses.length === 1 && first ? first : { kind: 'bool', clauses, boost: 1 };
  }

  /**
   * Bare words in a row are analyzed as one text (Lucene's splitOnWhitespace=false, which ES keeps:
   * "whitespace is not an operator"), so `a b c` is one term `a b c` in the clause list with the
   * default operator's occurrence; analyzed per field, it gives Lucene's clauses back.
   */
  private multiTerm(field: string | undefined, clauses: Clause[]): QsNode {
    let image = this.consume().image;
    do image += ` ${this.consume().image}`;
    while (this.peek().kind === TERM && !ENDS_MULTI_TERM.has(this.peek(2).kind));
    const node = this.fieldQuery(field, unescape(image));
    clauses.push({ occur: this.and ? 'must' : 'should', node });
    return node;
  }

  /** QueryParserBase.addClause: an `AND` makes the clause before required, an `OR` (under AND) optional. */
  private addClause(clauses: Clause[], conjunction: Conjunction, modifier: Modifier, node: QsNode): void {
    const previous = clauses.at(-1);
    if (previous && previous.occur !== 'must_not') {
      if (conjunction === 'and') previous.occur = 'must';
      else if (conjunction === 'or' && this.and) previous.occur = 'should';
    }
    const prohibited = modifier === 'prohibited';
    const required = this.and
      ? !prohibited && conjunction !== 'or'
      : modifier === 'required' || (conjunction === 'and' && !prohibited);
    clauses.push({ occur: prohibited ? 'must_not' : required ? 'must' : 'should', node });
  }

  private conjunction(): Conjunction {
    if (!this.at([AND, OR])) return 'none';
    return this.consume().kind === AND ? 'and' : 'or';
  }

  private modifier(): Modifier {
    if (!this.at(MODIFIERS)) return 'none';
    return this.consume().kind === PLUS ? 'required' : 'prohibited';
  }

  // Clause ::= [ (TERM | "*") ":" ] ( Term | "(" Query ")" [ "^" NUMBER ] )
  private clause(field: string | undefined): QsNode {
    if (this.fieldAhead()) {
      const name = this.consume();
      this.consume();
      field = name.kind === STAR ? '*' : unescape(name.image);
    }
    this.require(CLAUSE_FIRST);
    if (this.peek().kind !== LPAREN) return this.term(field);
    this.consume();
    if (++this.depth > MAX_DEPTH) throw illegalArgument(`[query_string] groups nested more than ${MAX_DEPTH} deep are not supported by deeppage`);
    const group = this.query(field);
    this.depth--;
    this.expect(RPAREN);
    return boosted(group, this.boost());
  }

  private term(field: string | undefined): QsNode {
    const token = this.consume();
    if (token.kind === RANGEIN_START || token.kind === RANGEEX_START) return this.range(field, token.kind === RANGEIN_START);
    // [ "^" NUMBER [ FUZZY_SLOP ] | FUZZY_SLOP [ "^" NUMBER ] ]
    let boost: number | undefined;
    let fuzzy: Token | undefined;
    if (this.at([CARAT, FUZZY_SLOP])) {
      if (this.peek().kind === CARAT) {
        boost = this.boost();
        if (this.at([FUZZY_SLOP])) fuzzy = this.consume();
      } else {
        fuzzy = this.consume();
        boost = this.boost();
      }
    }
    const node = token.kind === QUOTED ? this.quoted(field, token, fuzzy) : this.bare(field, token, fuzzy);
    return boosted(node, boost);
  }

  /** QueryParserBase.handleBareTokenQuery; the escapes are checked first, as there. */
  private bare(field: string | undefined, token: Token, fuzzy: Token | undefined): QsNode {
    const text = unescape(token.kind === BAREOPER ? token.image[0] : token.image);
    switch (token.kind) {
      // `*` keeps the form Lucene hands ES (getWildcardQuery(field, "*")), as ES decides it per
      // index: match all when the field, or else the default field, is `*`; otherwise `exists` on
      // that field, or on each default field when there are several.
      case STAR:
        return { kind: 'wildcard', field, pattern: '*', boost: 1 };
      case WILDTERM:
        return { kind: 'wildcard', field, pattern: wildcardPattern(token.image), boost: 1 };
      case PREFIXTERM:
        return { kind: 'wildcard', field, pattern: `${escapeWildcards(unescape(token.image.slice(0, -1)))}*`, boost: 1 };
      case REGEXPTERM:
        return this.refuse('[query_string] regular expressions are not supported by deeppage yet', field, text);
    }
    if (fuzzy) return this.refuse('[query_string] fuzzy queries are not supported by deeppage yet', field, text);
    return this.fieldQuery(field, text);
  }

  private refuse(reason: string, field: string | undefined, text: string): QsNode {
    this.unsupported ??= reason;
    return { kind: 'term', field, text, boost: 1 };
  }

  /** ES's getFieldQuery for unquoted text: `_exists_:field`, and `>`, `>=`, `<`, `<=` before a bound. */
  private fieldQuery(field: string | undefined, text: string): QsNode {
    const target = field ?? this.defaultField;
    if (target === '_exists_') return { kind: 'exists', field: text, boost: 1 };
    if (target !== null && text.length > 1) {
      const orEqual = text.length > 2 && text[1] === '=';
      const bound = text.slice(orEqual ? 2 : 1);
      if (text[0] === '>') return rangeNode(field, bound, undefined, orEqual, true);
      if (text[0] === '<') return rangeNode(field, undefined, bound, true, orEqual);
    }
    return { kind: 'term', field, text, boost: 1 };
  }

  /** A phrase's `~` is its slop, read as Lucene does (`(int) Float.parseFloat`, 0 when unreadable). */
  private quoted(field: string | undefined, token: Token, fuzzy: Token | undefined): QsNode {
    const slop = fuzzy ? javaFloatToInt(fuzzy.image.slice(1)) ?? 0 : 0;
    const text = unescape(token.image.slice(1, -1));
    if ((field ?? this.defaultField) === '_exists_') return { kind: 'exists', field: text, boost: 1 };
    return { kind: 'phrase', field, text, slop, boost: 1 };
  }

  // ( "[" | "{" ) bound "TO" bound ( "]" | "}" ) [ "^" NUMBER ]
  private range(field: string | undefined, includeLower: boolean): QsNode {
    const lower = this.oneOf(RANGE_BOUND);
    this.expect(RANGE_TO);
    const upper = this.oneOf(RANGE_BOUND);
    const includeUpper = this.oneOf([RANGEIN_END, RANGEEX_END]).kind === RANGEIN_END;
    const boost = this.boost();
    const bound = (t: Token) => (t.kind === RANGE_QUOTED ? unescape(t.image.slice(1, -1)) : unescape(t.image));
    return boosted(rangeNode(field, bound(lower), bound(upper), includeLower, includeUpper), boost);
  }

  private boost(): number | undefined {
    if (!this.at([CARAT])) return undefined;
    this.consume();
    return Number(this.expect(NUMBER).image);
  }

  /** LOOKAHEAD(2) of MultiTerm: a word, then a word not followed by what ends a run of words. */
  private multiTermAhead(order: number): boolean {
    this.lookaheads.push({ order, scanned: [[TERM, 1]] });
    return this.peek().kind === TERM && this.peek(2).kind === TERM && !ENDS_MULTI_TERM.has(this.peek(3).kind);
  }

  /** LOOKAHEAD(2) of a clause's `field:` or `*:`. */
  private fieldAhead(): boolean {
    const scanned: [number, number][] = [[TERM, 1]];
    const first = this.peek().kind;
    if (first === TERM || first === STAR) {
      if (first === TERM) scanned.push([COLON, 2]);
      if (this.peek(2).kind === COLON) return true;
    }
    scanned.push([STAR, 1]);
    if (first === STAR) scanned.push([COLON, 2]);
    this.lookaheads.push({ order: 4, scanned });
    return false;
  }

  private peek(k = 1): Token {
    while (this.ahead.length < k) this.ahead.push(this.lexer.next());
    return this.ahead[k - 1];
  }

  private consume(): Token {
    const token = this.peek();
    this.ahead.shift();
    this.expected.clear();
    this.lookaheads = [];
    return token;
  }

  /** Whether the next token is one of `kinds`; if not, they join the expected list. */
  private at(kinds: number[]): boolean {
    if (kinds.includes(this.peek().kind)) return true;
    for (const kind of kinds) this.expected.add(kind);
    return false;
  }

  private require(kinds: number[]): void {
    if (!this.at(kinds)) this.fail();
  }

  private oneOf(kinds: number[]): Token {
    this.require(kinds);
    return this.consume();
  }

  private expect(kind: number): Token {
    return this.oneOf([kind]);
  }

  /**
   * JavaCC's ParseException: the token met, then every kind tried there in kind order, then what
   * replaying the lookaheads adds (jj_rescan_token, jj_add_error_token — which appends an entry
   * when it is already listed, hence Lucene's repeated `<TERM> ...`).
   */
  private fail(): never {
    const entries = [...this.expected].sort((a, b) => a - b).map((kind) => [kind]);
    const last: number[] = [];
    let end = 0;
    const add = (kind: number, position: number) => {
      if (position === end + 1) last[end++] = kind;
      else if (end !== 0) {
        const entry = last.slice(0, end);
        if (entries.some((e) => e.length === entry.length && e.every((k, i) => k === entry[i]))) entries.push(entry);
        if (position !== 0) last[(end = position) - 1] = kind;
      }
    };
    for (const { scanned } of [...this.lookaheads].sort((a, b) => a.order - b.order)) for (const [kind, position] of scanned) add(kind, position);
    add(EOF, 0);

    const met = this.peek();
    let encountered = '';
    const longest = Math.max(...entries.map((e) => e.length));
    for (let i = 0; i < longest && this.ahead[i]; i++) {
      const token = this.ahead[i];
      if (i !== 0) encountered += ' ';
      if (token.kind === EOF) {
        encountered += TOKEN_IMAGE[EOF];
        break;
      }
      encountered += ` ${TOKEN_IMAGE[token.kind]} "${javaEscape(token.image)} "`;
    }
    const expecting = entries.map((e) => `${e.map((k) => `${TOKEN_IMAGE[k]} `).join('')}${e.at(-1) === EOF ? '' : '...'}\n    `).join('');
    throw new LuceneParseError(
      `Encountered "${encountered}" at line 1, column ${met.begin}.\nWas expecting${entries.length === 1 ? ':' : ' one of:'}\n    ${expecting}`,
    );
  }
}

function boosted(node: QsNode, boost: number | undefined): QsNode {
  return boost === undefined ? node : { ...node, boost: node.boost * boost };
}

/** ES's getRangeQuery: a bound of `*` (quoted or escaped too) leaves that end open. */
function rangeNode(field: string | undefined, lower: string | undefined, upper: string | undefined, includeLower: boolean, includeUpper: boolean): QsNode {
  return {
    kind: 'range',
    field,
    ...(lower === undefined || lower === '*' ? {} : { lower }),
    ...(upper === undefined || upper === '*' ? {} : { upper }),
    includeLower,
    includeUpper,
    boost: 1,
  };
}

/** QueryParserBase.discardEscapeChar: `\x` is `x`, `\uXXXX` a UTF-16 unit. */
function unescape(input: string): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    if (input[i] !== '\\') {
      out += input[i];
      continue;
    }
    if (++i >= input.length) throw new LuceneParseError('Term can not end with escape character.');
    if (input[i] !== 'u') {
      out += input[i];
      continue;
    }
    let unit = 0;
    for (let digit = 0; digit < 4; digit++) {
      const c = input[++i];
      if (c === undefined) throw new LuceneParseError('Truncated unicode escape sequence.');
      if (!/[0-9a-fA-F]/.test(c)) throw new LuceneParseError(`Non-hex character in Unicode escape sequence: ${c}`);
      unit = unit * 16 + parseInt(c, 16);
    }
    out += String.fromCharCode(unit);
  }
  return out;
}

/**
 * A wildcard term with its escapes resolved: `*` and `?` are wildcards unless escaped, and in the
 * result `\` escapes only `*`, `?` and `\`. Case is kept: the engine lowercases it for text fields,
 * as Elasticsearch normalizes a pattern with the field's analyzer (a keyword field keeps it as written).
 */
function wildcardPattern(image: string): string {
  return image.replace(/\\([\s\S])|([*?])|([^\\*?]+)/g, (_, escaped: string | undefined, wildcard: string | undefined, plain: string | undefined) =>
    escaped !== undefined ? escapeWildcards(escaped) : (wildcard ?? plain!),
  );
}

const escapeWildcards = (literal: string) => literal.replace(/[\\*?]/g, '\\$&');

/** `(int) Float.parseFloat(text)`: truncated, saturated to int, NaN → 0; undefined where Java throws. */
function javaFloatToInt(text: string): number | undefined {
  const match = /^[\0- ]*([+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))[fFdD]?[\0- ]*$/.exec(text);
  if (!match) return undefined;
  const value = Math.trunc(Math.fround(Number(match[1])));
  return Number.isNaN(value) ? 0 : Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, value));
}

const JAVA_ESCAPES = new Map([['\b', '\\b'], ['\t', '\\t'], ['\n', '\\n'], ['\f', '\\f'], ['\r', '\\r'], ['"', '\\"'], ["'", "\\'"], ['\\', '\\\\']]);

/** JavaCC's addEscapes, for the text inside Lucene's messages. */
function javaEscape(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    out += JAVA_ESCAPES.get(text[i]) ?? (code < 0x20 || code > 0x7e ? `\\u${code.toString(16).padStart(4, '0')}` : text[i]);
  }
  return out;
}
