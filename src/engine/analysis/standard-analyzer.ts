/**
 * Elasticsearch's `standard` analyzer: Lucene's StandardTokenizer, then the lowercase filter; its stop
 * filter has no stop words by default, so it drops nothing. The analyzer never emits gaps or stacked
 * tokens, so a token's position is its index in the array {@link analyze} returns.
 *
 * @example
 * analyze("The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.")
 * // ['the', '2', 'quick', 'brown', 'foxes', 'jumped', 'over', 'the', 'lazy', "dog's", 'bone']
 * analyze('Brown-Foxes jumped', 5) // ['brown', 'foxes', 'jumpe', 'd']
 */
import { tokenize } from './standard-tokenizer.ts';

export { MAX_TOKEN_LENGTH_LIMIT } from './standard-tokenizer.ts';

/**
 * The tokens of `text`, lowercased, in order. A token longer than `maxTokenLength` UTF-16 units is
 * chopped into pieces of at most that length, each a token. Throws a RangeError unless
 * 1 <= maxTokenLength <= 1,048,576.
 */
export function analyze(text: string, maxTokenLength = 255): string[] {
  const tokens: string[] = [];
  // Lowercasing the whole text once keeps every offset (no code point changes its UTF-16 length) and
  // agrees with per-token lowercasing unless the text holds one of the two context-sensitive characters.
  const lowered = CONTEXT_SENSITIVE.test(text) ? null : text.toLowerCase();
  tokenize(text, maxTokenLength, (start, end) => {
    tokens.push(lowered !== null ? lowered.slice(start, end) : lowercase(text.slice(start, end)));
  });
  return tokens;
}

/**
 * Lowercases each code point on its own, as Java's `Character.toLowerCase(int)` does (Lucene's
 * LowerCaseFilter): the simple 1:1 mapping, so 'İ' (U+0130) becomes 'i' and 'Σ' is always 'σ'.
 *
 * JavaScript's `toLowerCase` applies the full mapping, which differs from the simple one in exactly two
 * places: U+0130 becomes "i̇" (two code points), and Σ becomes ς at the end of a word. Everywhere else it
 * maps each code point alone, to one code point of the same UTF-16 length, so it serves directly.
 */
export function lowercase(term: string): string {
  if (!CONTEXT_SENSITIVE.test(term)) return term.toLowerCase();
  let out = '';
  for (const ch of term) out += ch === '\u0130' ? 'i' : ch === '\u03a3' ? '\u03c3' : ch.toLowerCase();
  return out;
}

/** İ (U+0130) and Σ (U+03A3): where `toLowerCase` is not Java's per-code-point lowercasing. */
const CONTEXT_SENSITIVE = /[\u0130\u03a3]/;
