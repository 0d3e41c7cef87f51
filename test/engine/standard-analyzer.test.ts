/** The `standard` analyzer: Lucene's StandardTokenizer (UAX #29 as its JFlex grammar states it) + lowercase. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze, lowercase, MAX_TOKEN_LENGTH_LIMIT } from '../../src/engine/analysis/standard-analyzer.ts';
import { tokenize } from '../../src/engine/analysis/standard-tokenizer.ts';

/** The tokens of `text` in their original case, from the tokenizer's offsets. */
function rawTokens(text: string, maxTokenLength = 255): string[] {
  const tokens: string[] = [];
  tokenize(text, maxTokenLength, (start, end) => tokens.push(text.slice(start, end)));
  return tokens;
}

/**
 * Inputs and the tokens Lucene's StandardAnalyzer (stop words: none) produced for them, recorded from
 * Lucene 8.7, whose StandardTokenizer grammar is Lucene 9's.
 */
const LUCENE_CASES: [text: string, maxTokenLength: number, tokens: string[]][] = [
  ["The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.", 255, ['the', '2', 'quick', 'brown', 'foxes', 'jumped', 'over', 'the', 'lazy', "dog's", 'bone']],
  ["The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.", 5, ['the', '2', 'quick', 'brown', 'foxes', 'jumpe', 'd', 'over', 'the', 'lazy', "dog's", 'bone']],
  ['U.S.A. example.com www.elastic.co', 255, ['u.s.a', 'example.com', 'www.elastic.co']],
  ["a:b a.b a'b a’b a·b a.1 1.a a..b a'", 255, ['a:b', 'a.b', "a'b", 'a’b', 'a·b', 'a', '1', '1', 'a', 'a', 'b', 'a']],
  ["1,000.50 1.2.3 3,14 1'000 1;2 1:2 1..2 2.", 255, ['1,000.50', '1.2.3', '3,14', "1'000", '1;2', '1', '2', '1', '2', '2']],
  ['abc123 123abc a1.2 1a.b', 255, ['abc123', '123abc', 'a1.2', '1a.b']],
  ['foo_bar _foo_ __ _ a_1 1_a', 255, ['foo_bar', '_foo_', 'a_1', '1_a']],
  ['e-mail co-op 2024-01-15', 255, ['e', 'mail', 'co', 'op', '2024', '01', '15']],
  ['cafe\u0301 na\u0308ive co\u00ADop zero\u200Bwidth', 255, ['cafe\u0301', 'na\u0308ive', 'co\u00ADop', 'zero', 'width']],
  ['\u0301abc', 255, ['abc']],
  ['צה"ל א\' א\'ב', 255, ['צה"ל', "א'", "א'ב"]],
  ['中文字 東京タワー 人々 々', 255, ['中', '文', '字', '東', '京', 'タワー', '人', '々', '々']],
  ['ひらがな カタカナ ｶﾀｶﾅ ひー', 255, ['ひ', 'ら', 'が', 'な', 'カタカナ', 'ｶﾀｶﾅ', 'ひ', 'ー']],
  ['한국어 텍스트 한국abc', 255, ['한국어', '텍스트', '한국abc']],
  ['ภาษาไทยง่ายนิดเดียว ไทย123 ພາສາລາວ ភាសាខ្មែរ မြန်မာ', 255, ['ภาษาไทยง่ายนิดเดียว', 'ไทย', '123', 'ພາສາລາວ', 'ភាសាខ្មែរ', 'မြန်မာ']],
  ['👍 👍🏽 👨‍👩‍👧 🇺🇸🇬🇧 1️⃣ #⃣ # ❤️ ©️ © ™ ★ ♪ ☆ 🏴󠁧󠁢󠁳󠁣󠁴󠁿 a👍b 🇺', 255, ['👍', '👍🏽', '👨‍👩‍👧', '🇺🇸', '🇬🇧', '1️⃣', '#⃣', '❤️', '©️', '©', '™', '★', '♪', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', 'a', '👍', 'b']],
  ['١٢٣ ١٬٢٣٤ ١٫٥ ０１２ ¹²³ Ⅻ', 255, ['١٢٣', '١٬٢٣٤', '١٫٥', '０１２', 'ⅻ']],
  ['İSTANBUL ΟΔΟΣ ΣΑΣ ẞ Ω K', 255, ['istanbul', 'οδοσ', 'σασ', 'ß', 'ω', 'k']],
  ['a\u202Fb a\u00A0b a\tb', 255, ['a\u202Fb', 'a', 'b', 'a', 'b']],
  ['jumped', 1, ['j', 'u', 'm', 'p', 'e', 'd']],
  ['a𝐀b 𝐀𝐀', 2, ['a', '𝐀', 'b', '𝐀', '𝐀']],
  ['u.s.a', 4, ['u.s', 'a']],
  ['1,000,000', 3, ['1,0', '00', '000']],
];

describe('analyze', () => {
  it.each(LUCENE_CASES)('%j (max_token_length %i) gives what Lucene gives', (text, maxTokenLength, tokens) => {
    expect(analyze(text, maxTokenLength)).toEqual(tokens);
  });

  it('splits the Elasticsearch docs example, max_token_length 255 by default', () => {
    expect(analyze("The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.")).toEqual(
      ['the', '2', 'quick', 'brown', 'foxes', 'jumped', 'over', 'the', 'lazy', "dog's", 'bone'],
    );
  });

  it('gives nothing for empty text, whitespace and punctuation', () => {
    expect(analyze('')).toEqual([]);
    expect(analyze(' \t\n\r ')).toEqual([]);
    expect(analyze('!?-–—()[]{}<>/\\@$%^&+=|~`')).toEqual([]);
  });
});

describe('words (ALPHANUM, NUM)', () => {
  it('continues letters across one MidLetter, MidNumLet or quote when a letter follows', () => {
    expect(analyze("dog's U.S.A example.com a:b l’homme")).toEqual(["dog's", 'u.s.a', 'example.com', 'a:b', 'l’homme']);
    expect(analyze("dogs' end. a..b a.'b")).toEqual(['dogs', 'end', 'a', 'b', 'a', 'b']);
  });

  it('continues digits across one MidNum, MidNumLet or quote when a digit follows', () => {
    expect(analyze('1,000.50 10.0.0.1 1,2;3')).toEqual(['1,000.50', '10.0.0.1', '1,2;3']);
    expect(analyze('1,,000 1,a a.1 5.')).toEqual(['1', '000', '1', 'a', 'a', '1', '5']);
  });

  it('joins letters and digits, and anything across connector punctuation', () => {
    expect(analyze('abc123 4x4 foo_bar __init__ snake_case_1')).toEqual(['abc123', '4x4', 'foo_bar', '__init__', 'snake_case_1']);
    expect(analyze('_ __ _-_')).toEqual([]);
  });

  it('splits at hyphens, slashes, @ and the like', () => {
    expect(analyze('Brown-Foxes and/or me@example.com #tag')).toEqual(['brown', 'foxes', 'and', 'or', 'me', 'example.com', 'tag']);
  });

  it('keeps combining marks and format characters with the character before them', () => {
    expect(analyze('re\u0301sume\u0301 co\u00ADoperate')).toEqual(['re\u0301sume\u0301', 'co\u00ADoperate']);
  });

  it('applies the Hebrew quote rules', () => {
    expect(analyze('צה"ל א\' "שלום"')).toEqual(['צה"ל', "א'", 'שלום']);
  });
});

describe('CJK, Southeast Asian and other scripts', () => {
  it('makes one token per Han ideograph and per hiragana', () => {
    expect(analyze('我爱北京天安门')).toEqual(['我', '爱', '北', '京', '天', '安', '门']);
    expect(analyze('これはペンです')).toEqual(['こ', 'れ', 'は', 'ペン', 'で', 'す']);
  });

  it('keeps katakana runs and Hangul runs together', () => {
    expect(analyze('コンピューター ｺﾝﾋﾟｭｰﾀｰ')).toEqual(['コンピューター', 'ｺﾝﾋﾟｭｰﾀｰ']);
    expect(analyze('대한민국 서울특별시')).toEqual(['대한민국', '서울특별시']);
  });

  it('makes one token of each Thai, Lao, Khmer or Myanmar run', () => {
    expect(analyze('สวัสดีครับ ภาษาไทย')).toEqual(['สวัสดีครับ', 'ภาษาไทย']);
    expect(analyze('ສະບາຍດີ ជំរាបសួរ မင်္ဂလာပါ')).toEqual(['ສະບາຍດີ', 'ជំរាបសួរ', 'မင်္ဂလာပါ']);
  });

  it('splits where the script changes without a joining rule', () => {
    expect(analyze('東京タワー abcカナ ไทยabc')).toEqual(['東', '京', 'タワー', 'abc', 'カナ', 'ไทย', 'abc']);
  });

  it('tokenizes Cyrillic, Greek, Arabic and Devanagari words whole', () => {
    expect(analyze('Привет мир Καλημέρα مرحبا بالعالم नमस्ते')).toEqual(['привет', 'мир', 'καλημέρα', 'مرحبا', 'بالعالم', 'नमस्ते']);
  });
});

describe('emoji', () => {
  it('makes a token of each emoji, with its modifiers, ZWJ partners and selectors', () => {
    expect(analyze('👍 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 ❤️')).toEqual(['👍', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '❤️']);
  });

  it('pairs regional indicators into flags and drops a lone one', () => {
    expect(analyze('🇺🇸🇬🇧 🇫')).toEqual(['🇺🇸', '🇬🇧']);
  });

  it('reads keycaps but not bare # or *', () => {
    expect(analyze('1️⃣ 2⃣ #️⃣ *⃣ # *')).toEqual(['1️⃣', '2⃣', '#️⃣', '*⃣']);
  });

  it('reads tag sequences and the pictographs Lucene counts as emoji', () => {
    expect(analyze('🏴󠁧󠁢󠁳󠁣󠁴󠁿 © ★ ♪')).toEqual(['🏴󠁧󠁢󠁳󠁣󠁴󠁿', '©', '★', '♪']);
  });

  it('separates emoji from adjacent words', () => {
    expect(analyze('I❤️NY good👍')).toEqual(['i', '❤️', 'ny', 'good', '👍']);
  });
});

describe('max_token_length', () => {
  it('chops a longer token into consecutive pieces', () => {
    expect(analyze('jumped', 5)).toEqual(['jumpe', 'd']);
    expect(analyze('abcdefghij', 3)).toEqual(['abc', 'def', 'ghi', 'j']);
    expect(analyze('a'.repeat(600))).toEqual(['a'.repeat(255), 'a'.repeat(255), 'a'.repeat(90)]);
  });

  it('takes the longest match inside the window, so punctuation at the cut is dropped', () => {
    expect(analyze('u.s.a', 4)).toEqual(['u.s', 'a']);
    expect(analyze('1,000,000', 3)).toEqual(['1,0', '00', '000']);
  });

  it('never cuts a surrogate pair', () => {
    expect(analyze('a𝐀b', 2)).toEqual(['a', '𝐀', 'b']);
  });

  it('stops, as Lucene does, when a window of one unit meets a surrogate pair', () => {
    expect(analyze('ab😀cd', 1)).toEqual(['a', 'b']);
  });

  it('accepts 1 to 1,048,576', () => {
    expect(analyze('abc', MAX_TOKEN_LENGTH_LIMIT)).toEqual(['abc']);
    expect(() => analyze('abc', 0)).toThrow(RangeError);
    expect(() => analyze('abc', MAX_TOKEN_LENGTH_LIMIT + 1)).toThrow(RangeError);
  });
});

describe('lowercase', () => {
  it("follows Java's Character.toLowerCase, not JavaScript's full mapping", () => {
    expect(lowercase('İ')).toBe('i');
    expect(lowercase('İSTANBUL')).toBe('istanbul');
    expect(lowercase('ΟΔΟΣ')).toBe('οδοσ');
    expect(lowercase('ΣΑΣ Σ')).toBe('σασ σ');
    expect(lowercase('ẞ Ω K Ǆ')).toBe('ß ω k ǆ');
    expect(analyze('ΟΔΟΣ İZMİR')).toEqual(['οδοσ', 'izmir']);
  });

  it('maps every code point to one code point of the same UTF-16 length', () => {
    for (let c = 0; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCodePoint(c), lower = lowercase(ch);
      if (lower.length !== ch.length || lower.codePointAt(0)! > 0xffff !== c > 0xffff) expect.fail(`U+${c.toString(16)} -> ${lower}`);
    }
  });

  it('agrees with toLowerCase on ASCII', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary-ascii' }), (s) => lowercase(s) === s.toLowerCase()));
  });

  it('lowercases each code point on its own', () => {
    const unit = fc.oneof(fc.string({ unit: 'binary', maxLength: 3 }), fc.constantFrom('Σ', 'İ', 'ΑΣ', 'I\u0307', 'Σ\u0301'));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(lowercase(text)).toBe([...text].map(lowercase).join(''));
      }),
      { numRuns: 500 },
    );
  });
});

describe('properties', () => {
  const scripts = fc.constantFrom(..."aZ09'.,:;_-\" \t#*\u0301\u200D\uFE0F\u20E3中ひカ한ไאΣİ👍🏽🇺é𝐀".split(/(?:)/u));
  const text = fc.oneof(fc.string({ unit: scripts, maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 }));
  const maxTokenLength = fc.oneof(fc.constant(255), fc.integer({ min: 1, max: 8 }));

  it('emits non-empty, lowercase-stable tokens without whitespace, at most max_token_length long', () => {
    fc.assert(
      fc.property(text, maxTokenLength, (s, max) => {
        for (const token of analyze(s, max)) {
          expect(token.length).toBeGreaterThan(0);
          expect(token.length).toBeLessThanOrEqual(max);
          expect(lowercase(token)).toBe(token);
          // Two white-space characters join words: U+202F is ExtendNumLet (like `_`), U+FEFF is Format.
          expect(token).not.toMatch(/[^\S\u202F\uFEFF]/);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('gives tokens in order, without overlap, as lowercased slices of the text', () => {
    fc.assert(
      fc.property(text, maxTokenLength, (s, max) => {
        const offsets: number[] = [];
        tokenize(s, max, (start, end) => offsets.push(start, end));
        for (let i = 0; i < offsets.length; i += 2) {
          expect(offsets[i]).toBeLessThan(offsets[i + 1]);
          if (i > 0) expect(offsets[i]).toBeGreaterThanOrEqual(offsets[i - 1]);
        }
        expect(offsets.length === 0 || offsets[offsets.length - 1] <= s.length).toBe(true);
        expect(analyze(s, max)).toEqual(rawTokens(s, max).map(lowercase));
      }),
      { numRuns: 2000 },
    );
  });

  it('splits ASCII alphanumeric words joined by spaces into exactly those words, lowercased and chopped', () => {
    const word = fc.string({ unit: fc.constantFrom(...'abcxyzABCXYZ0189'), minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(fc.array(word, { maxLength: 20 }), fc.integer({ min: 1, max: 25 }), (words, max) => {
        expect(analyze(words.join(' '))).toEqual(words.map((w) => w.toLowerCase()));
        const chopped = words.flatMap((w) => w.toLowerCase().match(new RegExp(`.{1,${max}}`, 'g'))!);
        expect(analyze(words.join(' '), max)).toEqual(chopped);
      }),
    );
  });

  it('is unchanged by extra spaces and punctuation between tokens', () => {
    const word = fc.string({ unit: fc.constantFrom(...'abcXYZ019中ひ한👍'), minLength: 1, maxLength: 8 });
    const gap = fc.string({ unit: fc.constantFrom(' ', '\n', '-', '(', ')', '!', '/'), minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.array(fc.tuple(word, gap), { maxLength: 10 }), (pairs) => {
        const tight = pairs.map(([w]) => w).join(' ');
        const loose = pairs.map(([w, g]) => w + g).join('');
        expect(analyze(loose)).toEqual(analyze(tight));
      }),
    );
  });
});
