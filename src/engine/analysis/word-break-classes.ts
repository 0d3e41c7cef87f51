/**
 * The character classes of Lucene's StandardTokenizer grammar (`StandardTokenizerImpl.jflex`): UAX #29
 * Word_Break values as JFlex 1.8 knows them for `%unicode 9`, refined by what the grammar adds (emoji
 * properties, Han, Hiragana, Line_Break=Complex_Context). Every code point falls in exactly one class,
 * and two code points of one class behave alike in every rule of the grammar.
 *
 * JavaScript has no Word_Break or Line_Break property, so each class is derived from the properties it
 * has (`\p{Alphabetic}`, `\p{Grapheme_Extend}`, scripts, emoji) plus the short explicit lists UAX #29 and
 * Unicode 9 data give. Characters assigned after Unicode 9 follow today's properties, where Lucene
 * (which knows only Unicode 9) skips them: a known divergence.
 */

export const OTHER = 1;
/** ALetter: letters of alphabets and syllabaries (Hangul included), minus the classes below. */
export const ALETTER = 2;
/** An ALetter that is also an emoji character (ℹ, Ⓜ, 🅰, 🅱, 🅾, 🅿). */
export const ALETTER_EMOJI = 3;
export const HEBREW_LETTER = 4;
/** Word_Break Numeric (decimal digits, U+066B) and fullwidth digits, ASCII ones aside. */
export const NUMERIC = 5;
/** 0-9: numeric, and also the base of a keycap emoji. */
export const DIGIT = 6;
export const KATAKANA = 7;
/** Connector punctuation (`_`) and U+202F. */
export const EXTEND_NUM_LET = 8;
export const MID_LETTER = 9;
export const MID_NUM = 10;
export const MID_NUM_LET = 11;
export const SINGLE_QUOTE = 12;
export const DOUBLE_QUOTE = 13;
/** Word_Break Extend or Format (combining marks, soft hyphen…), other than those below. */
export const EXTEND = 14;
export const ZWJ = 15;
/** U+FE0E, text presentation selector. */
export const TEXT_SELECTOR = 16;
/** U+FE0F, emoji presentation selector. */
export const EMOJI_SELECTOR = 17;
/** U+20E3, combining enclosing keycap. */
export const KEYCAP = 18;
/** U+E0020..U+E007E: emoji tag characters. */
export const TAG_SPEC = 19;
/** U+E007F: cancel tag, closes an emoji tag sequence. */
export const TAG_TERM = 20;
/** Line_Break Complex_Context letters (Thai, Lao, Myanmar, Khmer…): runs become one token. */
export const SOUTHEAST_ASIAN = 21;
/** Complex_Context characters that are also Word_Break Extend (Thai vowel marks…). */
export const SOUTHEAST_ASIAN_MARK = 22;
/** Han ideographs and radicals: one token each. */
export const HAN = 23;
/** Hiragana: one token per character. */
export const HIRAGANA = 24;
/** An emoji character that starts a token on its own. */
export const EMOJI = 25;
export const EMOJI_MODIFIER_BASE = 26;
/** Skin tones U+1F3FB..U+1F3FF. Unicode 9 keeps them out of Extend. */
export const EMOJI_MODIFIER = 27;
export const REGIONAL_INDICATOR = 28;
/** `#` and `*`: only the base of a keycap emoji. */
export const KEYCAP_BASE = 29;
export const CLASS_COUNT = 30;

/**
 * The class of a code point. A memo of {@link classify}, filled on first sight of each code point: a
 * pure function's table, never invalidated (1 byte per code point, 0 = not yet classified).
 */
export function wordBreakClass(codePoint: number): number {
  const known = memo[codePoint];
  return known !== 0 ? known : (memo[codePoint] = classify(codePoint));
}

const memo = new Uint8Array(0x110000);

/** Unicode 9's lists where UAX #29 names code points rather than properties. */
const MID_LETTERS = [0x3a, 0xb7, 0x2d7, 0x387, 0x5f4, 0x2027, 0xfe13, 0xfe55, 0xff1a];
const MID_NUM_LETS = [0x2e, 0x2018, 0x2019, 0x2024, 0xfe52, 0xff07, 0xff0e];
const MID_NUMS = [0x2c, 0x3b, 0x37e, 0x589, 0x60c, 0x60d, 0x66c, 0x7f8, 0x2044, 0xfe10, 0xfe14, 0xfe50, 0xfe54, 0xff0c, 0xff1b];
/**
 * Extended_Pictographic as Unicode 14.0's emoji-data.txt has it, the data Lucene 9 generates its grammar
 * from. Later Unicode dropped reserved code points and non-emoji pictographs (★, ♪, ⚐) from the property,
 * which Lucene still reads as emoji, so today's `\p{Extended_Pictographic}` will not do. With the
 * Emoji_Modifier and Regional_Indicator characters (classes of their own), it is every Emoji (property)
 * character other than the keycap bases 0-9 # *: exactly the grammar's `EmojiChar`.
 */
const EXTENDED_PICTOGRAPHIC_14 =
  /[\u00A9\u00AE\u203C\u2049\u2122\u2139\u2194-\u2199\u21A9\u21AA\u231A\u231B\u2328\u2388\u23CF\u23E9-\u23F3\u23F8-\u23FA\u24C2\u25AA\u25AB\u25B6\u25C0\u25FB-\u25FE\u2600-\u2605\u2607-\u2612\u2614-\u2685\u2690-\u2705\u2708-\u2712\u2714\u2716\u271D\u2721\u2728\u2733\u2734\u2744\u2747\u274C\u274E\u2753-\u2755\u2757\u2763-\u2767\u2795-\u2797\u27A1\u27B0\u27BF\u2934\u2935\u2B05-\u2B07\u2B1B\u2B1C\u2B50\u2B55\u3030\u303D\u3297\u3299\u{1F000}-\u{1F0FF}\u{1F10D}-\u{1F10F}\u{1F12F}\u{1F16C}-\u{1F171}\u{1F17E}\u{1F17F}\u{1F18E}\u{1F191}-\u{1F19A}\u{1F1AD}-\u{1F1E5}\u{1F201}-\u{1F20F}\u{1F21A}\u{1F22F}\u{1F232}-\u{1F23A}\u{1F23C}-\u{1F23F}\u{1F249}-\u{1F3FA}\u{1F400}-\u{1F53D}\u{1F546}-\u{1F64F}\u{1F680}-\u{1F6FF}\u{1F774}-\u{1F77F}\u{1F7D5}-\u{1F7FF}\u{1F80C}-\u{1F80F}\u{1F848}-\u{1F84F}\u{1F85A}-\u{1F85F}\u{1F888}-\u{1F88F}\u{1F8AE}-\u{1F8FF}\u{1F90C}-\u{1F93A}\u{1F93C}-\u{1F945}\u{1F947}-\u{1FAFF}\u{1FC00}-\u{1FFFD}]/u;

const IS = {
  // U+1CF2, U+1CF3 were spacing marks in Unicode 9 (letters since).
  extendOrFormat: /[\p{Grapheme_Extend}\p{Mc}\p{Cf}\u1CF2\u1CF3]/u,
  emojiModifier: /\p{Emoji_Modifier}/u,
  // Today's data: since Unicode 14 it has only gained U+1FAF7, U+1FAF8.
  emojiModifierBase: /\p{Emoji_Modifier_Base}/u,
  hebrewLetter: /(?=\p{Script=Hebrew})\p{Lo}/u,
  katakana: /[\p{Script=Katakana}\u3031-\u3035\u309B\u309C\u30A0\u30FC\uFF70]/u,
  hiragana: /\p{Script=Hiragana}/u,
  ideographic: /\p{Ideographic}/u,
  han: /\p{Script=Han}/u,
  // Line_Break=SA: letters and marks of these scripts, and the few other characters Unicode 9 puts there.
  southeastAsian:
    /(?!\u1A7F)(?=[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}\p{Script=Tai_Le}\p{Script=New_Tai_Lue}\p{Script=Tai_Tham}\p{Script=Tai_Viet}\p{Script=Ahom}])[\p{L}\p{M}]|[\u0EAF\u109E\u109F\u19DA\u19DE\u19DF\u1AA0-\u1AAD\uAA77-\uAA79\uAADE\uAADF\u{1173A}\u{1173B}\u{1173F}]/u,
  numeric: /[\p{Nd}\u066B]/u,
  aLetter: /[\p{Alphabetic}\u05F3]/u,
  extendNumLet: /[\p{Pc}\u202F]/u,
};

function classify(c: number): number {
  switch (c) {
    case 0x22: return DOUBLE_QUOTE;
    case 0x27: return SINGLE_QUOTE;
    case 0x23: case 0x2a: return KEYCAP_BASE;
    case 0x200b: return OTHER; // a Format character that UAX #29 leaves out of Format
    case 0x111c9: return OTHER; // punctuation in Unicode 9, a mark since
    case 0x200d: return ZWJ;
    case 0x20e3: return KEYCAP;
    case 0xfe0e: return TEXT_SELECTOR;
    case 0xfe0f: return EMOJI_SELECTOR;
    case 0xe007f: return TAG_TERM;
  }
  if (c >= 0x30 && c <= 0x39) return DIGIT;
  if (c >= 0xe0020 && c <= 0xe007e) return TAG_SPEC;
  if (c >= 0x1f1e6 && c <= 0x1f1ff) return REGIONAL_INDICATOR;
  if (MID_LETTERS.includes(c)) return MID_LETTER;
  if (MID_NUM_LETS.includes(c)) return MID_NUM_LET;
  if (MID_NUMS.includes(c)) return MID_NUM;
  const s = String.fromCodePoint(c);
  if (IS.emojiModifier.test(s)) return EMOJI_MODIFIER;
  if (IS.extendOrFormat.test(s)) return IS.southeastAsian.test(s) ? SOUTHEAST_ASIAN_MARK : EXTEND;
  const emoji = EXTENDED_PICTOGRAPHIC_14.test(s);
  if (emoji && IS.emojiModifierBase.test(s)) return EMOJI_MODIFIER_BASE;
  if (IS.hebrewLetter.test(s)) return HEBREW_LETTER;
  if (IS.katakana.test(s)) return KATAKANA;
  if (IS.hiragana.test(s)) return HIRAGANA;
  if (IS.southeastAsian.test(s)) return SOUTHEAST_ASIAN;
  if (IS.numeric.test(s)) return NUMERIC;
  const letter = IS.aLetter.test(s) && !IS.ideographic.test(s);
  if (letter) return emoji ? ALETTER_EMOJI : ALETTER;
  if (IS.han.test(s)) return HAN;
  if (emoji) return EMOJI;
  if (IS.extendNumLet.test(s)) return EXTEND_NUM_LET;
  return OTHER;
}
