/**
 * Booleans as Elasticsearch reads them (src/engine/booleans.ts): the words' rule (Booleans.parseBoolean)
 * over every string, and the four ways ES reads it, each pinned by properties and by ES's own cases.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bodyBoolean,
  booleanParam,
  documentBoolean,
  hasText,
  isBoolean,
  isBooleanValue,
  nodeBoolean,
  nodeBooleanOf,
  optionalBooleanParam,
  parseBoolean,
  parseBooleanOr,
} from '../../src/engine/booleans.ts';
import { badRequest } from '../../src/engine/errors.ts';
import { failure, refusal } from './request/failure.ts';

const words = (text: string): [number, string, string] => [400, 'illegal_argument_exception', `Failed to parse value [${text}] as only [true] or [false] are allowed.`];

/** Every string but the two words, weighted toward near misses (case, padding, other yes/no words). */
const notAWord = fc
  .oneof(
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    fc.constantFrom('TRUE', 'True', 'FALSE', ' true', 'false ', 'yes', 'no', 'on', 'off', '1', '0', 't', 'f', 'null', 'truefalse'),
    fc.tuple(fc.constantFrom('true', 'false'), fc.string({ minLength: 1 })).map(([word, tail]) => word + tail),
  )
  .filter((text) => !isBoolean(text));

/** Java's `Character.isWhitespace` characters (Unicode separators but the non-breaking ones, ASCII 9–13 and 28–31). */
const JAVA_WHITESPACE = '\t\n\u000B\f\r\u001C\u001D\u001E\u001F \u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2008\u2009\u200A\u2028\u2029\u205F\u3000';
const blank = fc.array(fc.constantFrom(...JAVA_WHITESPACE), { minLength: 1 }).map((chars) => chars.join(''));
const WRONG_TYPE = badRequest('x_content_parse_exception', 'wrong type');

describe('the words (Booleans.parseBoolean)', () => {
  it('reads exactly true and false', () => {
    expect([parseBoolean('true'), parseBoolean('false')]).toEqual([true, false]);
    expect([isBoolean('true'), isBoolean('false'), isBoolean(''), isBoolean('True')]).toEqual([true, true, false, false]);
  });

  it("refuses every other string with ES's IllegalArgumentException, naming it", () => {
    fc.assert(fc.property(notAWord, (text) => {
      expect(refusal(() => parseBoolean(text))).toEqual(words(text));
    }));
  });

  it('with a default: absent, empty or Java-blank text is the default, any other text the words', () => {
    expect([parseBooleanOr(undefined, true), parseBooleanOr('', false), parseBooleanOr(' \t', 'unset')]).toEqual([true, false, 'unset']);
    fc.assert(fc.property(blank, fc.boolean(), (text, fallback) => {
      expect(parseBooleanOr(text, fallback)).toBe(fallback);
    }));
    fc.assert(fc.property(notAWord.filter(hasText), (text) => {
      expect(refusal(() => parseBooleanOr(text, true))).toEqual(words(text));
    }));
  });

  it("has text as Java's Strings.hasText has it: the non-breaking spaces and zero-width ones are text", () => {
    for (const char of JAVA_WHITESPACE) expect(hasText(char)).toBe(false);
    for (const char of ['\u00A0', '\u2007', '\u202F', '\u200B', '\uFEFF', 'x']) expect(hasText(char)).toBe(true);
  });
});

describe('URL parameters (RestRequest.paramAsBoolean)', () => {
  it('a bare flag is true, an absent or blank one the default, any other value the words', () => {
    expect([booleanParam('', false), booleanParam('', true), booleanParam(undefined, true), booleanParam(undefined, false)]).toEqual([true, true, true, false]);
    expect([booleanParam('true', false), booleanParam('false', true)]).toEqual([true, false]);
    fc.assert(fc.property(blank, fc.boolean(), (text, fallback) => {
      expect(booleanParam(text, fallback)).toBe(fallback);
    }));
    fc.assert(fc.property(notAWord.filter(hasText), fc.boolean(), (text, fallback) => {
      expect(refusal(() => booleanParam(text, fallback))).toEqual(words(text));
    }));
  });

  it('read with a null default (`version`, `explain`, `lenient`, …), a bare flag is not given', () => {
    expect([optionalBooleanParam(''), optionalBooleanParam(undefined), optionalBooleanParam(' ')]).toEqual([undefined, undefined, undefined]);
    expect([optionalBooleanParam('true'), optionalBooleanParam('false')]).toEqual([true, false]);
    fc.assert(fc.property(notAWord.filter(hasText), (text) => {
      expect(refusal(() => optionalBooleanParam(text))).toEqual(words(text));
    }));
  });
});

describe('body values (XContentParser.booleanValue)', () => {
  const read = (value: unknown) => bodyBoolean(value, () => WRONG_TYPE);

  it('a JSON boolean, the words as strings, and the empty string as false', () => {
    expect([true, false, 'true', 'false', ''].map(read)).toEqual([true, false, true, false, false]);
  });

  it("any other string is the words' error; any other JSON type the caller's", () => {
    fc.assert(fc.property(notAWord.filter((text) => text !== ''), (text) => {
      expect(refusal(() => read(text))).toEqual(words(text));
    }));
    fc.assert(fc.property(fc.oneof(fc.double(), fc.constant(null), fc.array(fc.boolean()), fc.dictionary(fc.string(), fc.boolean())), (value) => {
      expect(failure(() => read(value))).toBe(WRONG_TYPE);
    }));
  });

  it('tells a value that reads as a boolean without reading it (isBooleanValue): the empty string does not', () => {
    expect([true, false, 'true', 'false', '', 'yes', 1, null, ['true']].map(isBooleanValue)).toEqual([true, true, true, true, false, false, false, false, false]);
  });

  it("a boolean field's document value is read the same way, undefined where that fails", () => {
    expect([true, false, 'true', 'false', ''].map(documentBoolean)).toEqual([true, false, true, false, false]);
    fc.assert(fc.property(fc.oneof(notAWord.filter((text) => text !== ''), fc.double(), fc.constant(null), fc.array(fc.boolean())), (value) => {
      expect(documentBoolean(value)).toBeUndefined();
    }));
  });
});

describe('map values (XContentMapValues.nodeBooleanValue)', () => {
  it('reads the Java text of the value by the words, a failure wrapped naming the key', () => {
    expect([nodeBoolean(true, 'k'), nodeBoolean('false', 'k')]).toEqual([true, false]);
    const e = failure(() => nodeBoolean(['true'], 'request_cache'));
    expect([e.type, e.reason, e.causedBy?.reason]).toEqual(['illegal_argument_exception', 'Could not convert [request_cache] to boolean', 'Failed to parse value [[true]] as only [true] or [false] are allowed.']);
    fc.assert(
      fc.property(notAWord, (text) => {
        const wrapped = failure(() => nodeBoolean(text, 'k'));
        expect([wrapped.reason, wrapped.causedBy?.reason]).toEqual(['Could not convert [k] to boolean', words(text)[2]]);
      }),
    );
  });

  it('with a default: null and blank text are the default', () => {
    expect([nodeBoolean(null, 'k', true), nodeBoolean(undefined, 'k', false), nodeBoolean('', 'k', true)]).toEqual([true, false, true]);
    fc.assert(fc.property(blank, fc.boolean(), (text, fallback) => {
      expect(nodeBoolean(text, 'k', fallback)).toBe(fallback);
    }));
    expect(failure(() => nodeBoolean(null, 'k')).causedBy?.reason).toBe(words('null')[2]);
  });

  it('tells what it would read, for callers that refuse in words of their own', () => {
    expect([true, false, 'true', 'false', '', 'yes', 1, null, undefined, ['true'], { a: true }].map(nodeBooleanOf)).toEqual([true, false, true, false, undefined, undefined, undefined, undefined, undefined, undefined, undefined]);
  });
});
