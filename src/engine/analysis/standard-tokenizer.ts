/**
 * Lucene 9's StandardTokenizer: the UAX #29 word-break rules as its JFlex grammar
 * (`StandardTokenizerImpl.jflex`) states them. Like the generated scanner, it takes at each position the
 * longest text any rule matches; a match by a token rule (word, number, Southeast Asian run, ideograph,
 * hiragana, emoji) is a token, anything else (punctuation, symbols, spaces, a stray mark) is one skipped
 * code point. The rules, by the class of the first code point:
 *
 * - words: letters, digits, katakana joined across `_`, and across one `'` `.` `:`… between letters or one
 *   `,` `.` `'`… between digits (`dog's`, `u.s.a`, `1,000.50`, `abc123`, `foo_bar`);
 * - a run of Thai, Lao, Myanmar, Khmer… (Line_Break Complex_Context) is one token;
 * - each Han ideograph and each hiragana is a token of its own;
 * - emoji: presentation, modifier, ZWJ and tag sequences, keycaps, flag pairs.
 *
 * Every token rule lets a character carry trailing Extend/Format/ZWJ characters (UAX #29 WB4).
 */
import {
  ALETTER, ALETTER_EMOJI, CLASS_COUNT, DIGIT, DOUBLE_QUOTE, EMOJI, EMOJI_MODIFIER, EMOJI_MODIFIER_BASE, EMOJI_SELECTOR,
  EXTEND, EXTEND_NUM_LET, HAN, HEBREW_LETTER, HIRAGANA, KATAKANA, KEYCAP, KEYCAP_BASE, MID_LETTER, MID_NUM, MID_NUM_LET,
  NUMERIC, REGIONAL_INDICATOR, SINGLE_QUOTE, SOUTHEAST_ASIAN, SOUTHEAST_ASIAN_MARK, TAG_SPEC, TAG_TERM, TEXT_SELECTOR,
  ZWJ, wordBreakClass,
} from './word-break-classes.ts';

/** Lucene's bounds on `max_token_length`. */
export const MAX_TOKEN_LENGTH_LIMIT = 1024 * 1024;

/**
 * Calls `token(start, end)` for each token of `text`, in order (UTF-16 offsets, `end` exclusive).
 *
 * A token longer than `maxTokenLength` UTF-16 units is chopped, as Lucene's scanner does: it sees at most
 * `maxTokenLength` units from where a token starts (one fewer when the last would be a high surrogate),
 * takes the longest match inside them, and starts again right after it.
 */
export function tokenize(text: string, maxTokenLength: number, token: (start: number, end: number) => void): void {
  if (!(maxTokenLength >= 1)) throw new RangeError('maxTokenLength must be greater than zero');
  if (maxTokenLength > MAX_TOKEN_LENGTH_LIMIT) throw new RangeError(`maxTokenLength may not exceed ${MAX_TOKEN_LENGTH_LIMIT}`);
  const n = text.length;
  let i = 0;
  while (i < n) {
    let limit = Math.min(i + maxTokenLength, n);
    if (limit < n && isHighSurrogate(text.charCodeAt(limit - 1))) limit--; // its low half lies outside the window
    if (limit === i) return; // max_token_length 1 at a surrogate pair: Lucene's scanner reports end of input
    const end = matchAt(text, i, limit);
    if (end > i) {
      token(i, end);
      i = end;
    } else {
      i += codePointAt(text, i, limit) > 0xffff ? 2 : 1;
    }
  }
}

/** The end of the longest token that starts at `start` and ends by `limit`, or -1 when none does. */
function matchAt(text: string, start: number, limit: number): number {
  const cp = codePointAt(text, start, limit);
  const next = start + (cp > 0xffff ? 2 : 1);
  switch (wordBreakClass(cp)) {
    case ALETTER: case HEBREW_LETTER: case NUMERIC: case KATAKANA: case EXTEND_NUM_LET:
      return matchWord(text, start, limit);
    case DIGIT: {
      const word = matchWord(text, start, limit);
      // A keycap emoji needs a non-ASCII character after the digit.
      return next < limit && text.charCodeAt(next) >= 0x80 ? Math.max(word, matchEmoji(text, start, limit)) : word;
    }
    case ALETTER_EMOJI:
      return Math.max(matchWord(text, start, limit), matchEmoji(text, start, limit));
    case EMOJI: case EMOJI_MODIFIER_BASE: case EMOJI_MODIFIER: case REGIONAL_INDICATOR: case KEYCAP_BASE: case ZWJ:
      return matchEmoji(text, start, limit);
    case SOUTHEAST_ASIAN: case SOUTHEAST_ASIAN_MARK:
      return matchSoutheastAsian(text, next, limit);
    case HAN: case HIRAGANA:
      return skipExtends(text, next, limit);
  }
  return -1;
}

// ---- Words: a DFA over classes, the grammar's ALPHANUM (with NUM, HANGUL, KATAKANA inside it) ----

/** Word states. Accepting ones come last so that `state >= LETTERS` tests acceptance. */
const DEAD = 0, START = 1, LEADING_UNDERSCORES = 2, AFTER_LETTER_MID = 3, AFTER_NUMBER_MID = 4, AFTER_HEBREW_DOUBLE_QUOTE = 5;
const LETTERS = 6, HEBREW = 7, HEBREW_SINGLE_QUOTE = 8, NUMBER = 9, KATAKANAS = 10, TRAILING_UNDERSCORES = 11;
const WORD_STATES = 12;

/** Extend, Format and ZWJ: what a character drags along (WB4). */
const EXTENDERS = [EXTEND, ZWJ, TEXT_SELECTOR, EMOJI_SELECTOR, KEYCAP, TAG_SPEC, TAG_TERM, SOUTHEAST_ASIAN_MARK];

/** `WORD_NEXT[state * CLASS_COUNT + class]`: the next word state, DEAD when the word cannot go on. */
const WORD_NEXT = (() => {
  const table = new Uint8Array(WORD_STATES * CLASS_COUNT);
  const on = (from: number, classes: number[], to: number) => { for (const c of classes) table[from * CLASS_COUNT + c] = to; };
  const letter = [ALETTER, ALETTER_EMOJI], number = [NUMERIC, DIGIT], underscore = [EXTEND_NUM_LET];
  for (const from of [START, LEADING_UNDERSCORES, LETTERS, HEBREW, HEBREW_SINGLE_QUOTE, NUMBER, TRAILING_UNDERSCORES]) {
    on(from, letter, LETTERS); // WB5, WB9, WB10, WB13b
    on(from, [HEBREW_LETTER], HEBREW);
    on(from, number, NUMBER); // WB8
    on(from, underscore, from === START || from === LEADING_UNDERSCORES ? LEADING_UNDERSCORES : TRAILING_UNDERSCORES); // WB13a
  }
  for (const from of [START, LEADING_UNDERSCORES, KATAKANAS, TRAILING_UNDERSCORES]) on(from, [KATAKANA], KATAKANAS); // WB13
  on(KATAKANAS, underscore, TRAILING_UNDERSCORES);
  on(LETTERS, [MID_LETTER, MID_NUM_LET, SINGLE_QUOTE], AFTER_LETTER_MID); // WB6, WB7
  on(HEBREW, [MID_LETTER, MID_NUM_LET], AFTER_LETTER_MID);
  on(HEBREW, [SINGLE_QUOTE], HEBREW_SINGLE_QUOTE); // WB7a, or WB6 when a letter follows
  on(HEBREW, [DOUBLE_QUOTE], AFTER_HEBREW_DOUBLE_QUOTE); // WB7b
  on(AFTER_HEBREW_DOUBLE_QUOTE, [HEBREW_LETTER], HEBREW); // WB7c
  on(AFTER_LETTER_MID, letter, LETTERS);
  on(AFTER_LETTER_MID, [HEBREW_LETTER], HEBREW);
  on(NUMBER, [MID_NUM, MID_NUM_LET, SINGLE_QUOTE], AFTER_NUMBER_MID); // WB11, WB12
  on(AFTER_NUMBER_MID, number, NUMBER);
  for (let from = START + 1; from < WORD_STATES; from++) on(from, EXTENDERS, from); // WB4, never first
  return table;
})();

function matchWord(text: string, start: number, limit: number): number {
  let state = START, accepted = -1;
  for (let i = start; i < limit;) {
    const cp = codePointAt(text, i, limit);
    state = WORD_NEXT[state * CLASS_COUNT + wordBreakClass(cp)];
    if (state === DEAD) break;
    i += cp > 0xffff ? 2 : 1;
    if (state >= LETTERS) accepted = i;
  }
  return accepted;
}

// ---- Runs and single characters ----

const IS_EXTENDER = new Uint8Array(CLASS_COUNT);
for (const c of EXTENDERS) IS_EXTENDER[c] = 1;

/** The end of the Extend, Format and ZWJ characters from `i` on. */
function skipExtends(text: string, i: number, limit: number): number {
  while (i < limit) {
    const cp = codePointAt(text, i, limit);
    if (IS_EXTENDER[wordBreakClass(cp)] === 0) break;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

/** The end of a Complex_Context run, `(SA Extend*)+`, whose first character ends at `i`. */
function matchSoutheastAsian(text: string, i: number, limit: number): number {
  while (i < limit) {
    const cp = codePointAt(text, i, limit), c = wordBreakClass(cp);
    if (c !== SOUTHEAST_ASIAN && IS_EXTENDER[c] === 0) break;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

// ---- Emoji: the grammar's EMOJI rule, run as an NFA over a bit set of states ----
//
//   Seq (ZWJ Seq)*  |  Seq TagSpec+ TagTerm  |  KeycapBase X* FE0F? 20E3 X*  |  (RI Ext*){2}
//   where Seq = ZWJ* Emoji X* FE0F?  |  (ZWJ* ModifierBase X*)? Modifier X*
//   and X is Extend/Format/ZWJ less the presentation selectors FE0E, FE0F.
// The first Seq is tracked apart from later ones because only it may take a tag sequence.

const S_FIRST = 1 << 0, S_FIRST_ZWJ = 1 << 1, S_FIRST_EMOJI = 1 << 2, S_FIRST_SELECTED = 1 << 3, S_FIRST_BASE = 1 << 4;
const S_NEXT = 1 << 5, S_NEXT_ZWJ = 1 << 6, S_NEXT_EMOJI = 1 << 7, S_NEXT_SELECTED = 1 << 8, S_NEXT_BASE = 1 << 9;
const S_MODIFIED = 1 << 10, S_TAGS = 1 << 11, S_TAGGED = 1 << 12;
const S_KEY_START = 1 << 13, S_KEY = 1 << 14, S_KEY_SELECTED = 1 << 15, S_KEYCAP = 1 << 16;
const S_FLAG_START = 1 << 17, S_FLAG_HALF = 1 << 18, S_FLAG = 1 << 19;
const EMOJI_ACCEPTING = S_FIRST_EMOJI | S_FIRST_SELECTED | S_NEXT_EMOJI | S_NEXT_SELECTED | S_MODIFIED | S_TAGGED | S_KEYCAP | S_FLAG;

/** What a class can be in an emoji sequence. R_X: the X above; R_EXT: X and both selectors. */
const R_ZWJ = 1, R_EMOJI = 2, R_BASE = 4, R_MODIFIER = 8, R_X = 16, R_SELECTOR = 32, R_EXT = 64;
const R_KEY = 128, R_KEYCAP = 256, R_FLAG = 512, R_TAG_SPEC = 1024, R_TAG_TERM = 2048;
const ROLES = (() => {
  const roles = new Uint16Array(CLASS_COUNT);
  roles[ZWJ] = R_ZWJ | R_X | R_EXT;
  roles[EMOJI] = roles[ALETTER_EMOJI] = R_EMOJI;
  roles[EMOJI_MODIFIER_BASE] = R_EMOJI | R_BASE;
  roles[EMOJI_MODIFIER] = R_MODIFIER;
  roles[EXTEND] = roles[SOUTHEAST_ASIAN_MARK] = R_X | R_EXT;
  roles[KEYCAP] = R_X | R_EXT | R_KEYCAP;
  roles[TAG_SPEC] = R_X | R_EXT | R_TAG_SPEC;
  roles[TAG_TERM] = R_X | R_EXT | R_TAG_TERM;
  roles[TEXT_SELECTOR] = R_EXT;
  roles[EMOJI_SELECTOR] = R_EXT | R_SELECTOR;
  roles[DIGIT] = roles[KEYCAP_BASE] = R_KEY;
  roles[REGIONAL_INDICATOR] = R_FLAG;
  return roles;
})();

/** A whole Seq has been read: a ZWJ may join another. */
const SEQ_DONE = S_FIRST_EMOJI | S_FIRST_SELECTED | S_NEXT_EMOJI | S_NEXT_SELECTED | S_MODIFIED;
/** States that an X character keeps as they are. */
const X_KEEPS = S_FIRST_EMOJI | S_NEXT_EMOJI | S_FIRST_BASE | S_NEXT_BASE | S_MODIFIED | S_KEY | S_KEYCAP;

/** The states after reading a character with roles `r` in states `s`. */
function emojiStep(s: number, r: number): number {
  let t = 0;
  if (r & R_ZWJ) {
    if (s & (S_FIRST | S_FIRST_ZWJ)) t |= S_FIRST_ZWJ;
    if (s & (S_NEXT | S_NEXT_ZWJ)) t |= S_NEXT_ZWJ;
    if (s & SEQ_DONE) t |= S_NEXT;
  }
  if (r & R_EMOJI) {
    if (s & (S_FIRST | S_FIRST_ZWJ)) t |= S_FIRST_EMOJI;
    if (s & (S_NEXT | S_NEXT_ZWJ)) t |= S_NEXT_EMOJI;
  }
  if (r & R_BASE) {
    if (s & (S_FIRST | S_FIRST_ZWJ)) t |= S_FIRST_BASE;
    if (s & (S_NEXT | S_NEXT_ZWJ)) t |= S_NEXT_BASE;
  }
  if (r & R_MODIFIER && s & (S_FIRST | S_NEXT | S_FIRST_BASE | S_NEXT_BASE)) t |= S_MODIFIED;
  if (r & R_X) t |= s & X_KEEPS;
  if (r & R_SELECTOR) {
    if (s & S_FIRST_EMOJI) t |= S_FIRST_SELECTED;
    if (s & S_NEXT_EMOJI) t |= S_NEXT_SELECTED;
    if (s & S_KEY) t |= S_KEY_SELECTED;
  }
  if (r & R_TAG_SPEC && s & (S_FIRST_SELECTED | S_TAGS)) t |= S_TAGS;
  if (r & R_TAG_TERM && s & S_TAGS) t |= S_TAGGED;
  if (r & R_KEY && s & S_KEY_START) t |= S_KEY;
  if (r & R_KEYCAP && s & (S_KEY | S_KEY_SELECTED)) t |= S_KEYCAP;
  if (r & R_FLAG) {
    if (s & S_FLAG_START) t |= S_FLAG_HALF;
    if (s & S_FLAG_HALF) t |= S_FLAG;
  }
  if (r & R_EXT) t |= s & (S_FLAG_HALF | S_FLAG);
  return t;
}

function matchEmoji(text: string, start: number, limit: number): number {
  let states = S_FIRST | S_KEY_START | S_FLAG_START, accepted = -1;
  for (let i = start; i < limit && states !== 0;) {
    const cp = codePointAt(text, i, limit);
    states = emojiStep(states, ROLES[wordBreakClass(cp)]);
    i += cp > 0xffff ? 2 : 1;
    if (states & EMOJI_ACCEPTING) accepted = i;
  }
  return accepted;
}

// ---- UTF-16 ----

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** The code point at `i`; a surrogate pair counts only when both halves lie before `limit`, as in Java. */
function codePointAt(text: string, i: number, limit: number): number {
  const unit = text.charCodeAt(i);
  if (isHighSurrogate(unit) && i + 1 < limit) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return ((unit - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
  }
  return unit;
}
