import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EsError } from '../../src/engine/errors.ts';
import { parseJsonBody, parseNdjson, parseNdjsonInPasses, type NdjsonLine } from '../../src/http/body.ts';
import { findJsonSyntaxError } from '../../src/http/json-syntax.ts';
import { failure, refusal } from '../engine/request/failure.ts';

const KINDS = "(JSON String, Number, Array, Object or token 'null', 'true' or 'false')";
const SOURCE = 'REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled)';

describe('parseJsonBody', () => {
  it('parses JSON of any shape', () => {
    expect(parseJsonBody('{"size": 3}')).toEqual({ size: 3 });
    expect(parseJsonBody(' [1, 2] ')).toEqual([1, 2]);
    expect(parseJsonBody('null')).toBeNull();
  });

  it('reads an empty or whitespace body as no body', () => {
    expect(parseJsonBody('')).toBeUndefined();
    expect(parseJsonBody(' \n\t\r\n')).toBeUndefined();
  });

  it("answers malformed JSON as ES does: [line:column] and Jackson's words, with a json_parse_exception cause", () => {
    const text = '{"query": {}, m}';
    const e = failure(() => parseJsonBody(text));
    const message = "Unexpected character ('m' (code 109)): was expecting double-quote to start field name";
    expect([e.status, e.type, e.reason]).toEqual([400, 'x_content_parse_exception', `[1:15] ${message}`]);
    expect(e.causedBy).toMatchObject({ type: 'json_parse_exception', reason: `${message}\n at [Source: ${SOURCE}; line: 1, column: 15]` });
    expect(e.rootCauses()).toEqual([e]);
  });

  it('counts lines and columns from the start of the body', () => {
    const reason = failure(() => parseJsonBody('{\n  "size": 10,\n  "from": nope\n}')).reason;
    expect(reason).toBe(
      `[3:11] Unrecognized token 'nope': was expecting ${KINDS}`,
    );
  });

  it.each([
    ['{"a" 1}', "[1:6] Unexpected character ('1' (code 49)): was expecting a colon to separate field name and value"],
    ['{"a": 1 "b": 2}', "[1:9] Unexpected character ('\"' (code 34)): was expecting comma to separate Object entries"],
    ['[1 2]', "[1:4] Unexpected character ('2' (code 50)): was expecting comma to separate Array entries"],
    ['[1,]', `[1:4] Unexpected character (']' (code 93)): expected a valid value ${KINDS}`],
    ['{"a":1,}', "[1:8] Unexpected character ('}' (code 125)): was expecting double-quote to start field name"],
    ['{"a": [1}', "[1:9] Unexpected close marker '}': expected ']'"],
    ['{"a": 1', '[1:8] Unexpected end-of-input: expected close marker for Object'],
    ['{"a": ', '[1:7] Unexpected end-of-input within/between Object entries'],
    ['{"a": "b', '[1:9] Unexpected end-of-input: was expecting closing quote for a string value'],
    ['{"a": "\\x"}', "[1:9] Unrecognized character escape 'x' (code 120)"],
    ['{"a": "\\u12g4"}', "[1:12] Unexpected character ('g' (code 103)): expected a hex-digit for character escape sequence"],
    ['{"a": "b\nc"}', '[1:9] Illegal unquoted character ((CTRL-CHAR, code 10)): has to be escaped using backslash to be included in string value'],
    ['{"a": -x}', "[1:8] Unexpected character ('x' (code 120)) in numeric value: expected digit (0-9) to follow minus sign, for valid numeric value"],
    ['{"a": 1.}', "[1:9] Unexpected character ('}' (code 125)) in numeric value: Decimal point not followed by a digit"],
    ['{"a": 1e}', "[1:9] Unexpected character ('}' (code 125)) in numeric value: Exponent indicator not followed by a digit"],
    ['{"a": 01}', '[1:7] Invalid numeric value: Leading zeroes not allowed'],
    ['{"a": tru}', `[1:7] Unrecognized token 'tru': was expecting ${KINDS}`],
    ['{"é": ü}', `[1:7] Unrecognized token 'ü': was expecting ${KINDS}`],
    ['{"a": €}', `[1:7] Unexpected character ('€' (code 8364 / 0x20ac)): expected a valid value ${KINDS}`],
    ['{} {}', "[1:4] Unexpected character ('{' (code 123)): expected end of input after the JSON value"],
  ])('%j → %s', (text, reason) => {
    expect(refusal(() => parseJsonBody(text))).toEqual([400, 'x_content_parse_exception', reason]);
  });

  it('finds a syntax error exactly when JSON.parse rejects the text (property)', () => {
    const nearJson = fc.oneof(
      fc.json(),
      fc.tuple(fc.json(), fc.nat(), fc.constantFrom('', ',', '}', ']', '"', ':', 'x', '-', '.', '\\', '\n', '0')).map(([json, at, insert]) => {
        const i = at % (json.length + 1);
        return json.slice(0, i) + insert + json.slice(i + (at % 2));
      }),
      fc.string({ unit: fc.constantFrom(...'{}[],:"\\ -0123.eEtrufalsn\n') }),
    );
    fc.assert(
      fc.property(nearJson, (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(findJsonSyntaxError(text) === undefined).toBe(valid);
        if (valid || text.trim() === '') return;
        const e = failure(() => parseJsonBody(text));
        expect(e.type).toBe('x_content_parse_exception');
        expect(e.reason).toMatch(/^\[\d+:\d+\] (Unexpected|Unrecognized|Illegal|Invalid|No content)/);
      }),
      { numRuns: 2000 },
    );
  });

  it('throws nothing but EsError, whatever the text (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          parseJsonBody(text);
        } catch (e) {
          expect(e).toBeInstanceOf(EsError);
        }
      }),
    );
  });
});

describe('parseNdjson', () => {
  it('parses one value per line, skipping blank lines and accepting \\r\\n', () => {
    const text = '{"index":{"_id":"1"}}\r\n{"a":1}\n\n  \n{"delete":{"_id":"2"}}\n';
    const lines = parseNdjson(text);
    expect(lines.map((line) => line.value)).toEqual([{ index: { _id: '1' } }, { a: 1 }, { delete: { _id: '2' } }]);
    expect(lines.map((line) => Buffer.from(line.bytes).toString())).toEqual(['{"index":{"_id":"1"}}', '{"a":1}', '{"delete":{"_id":"2"}}']);
  });

  it('keeps each line as the bytes it came in, and reads them as UTF-8', () => {
    const body = Buffer.from('{"index":{}}\n{"name": "caf\u00e9 \\u00e9", "big": 12345678901234567890}\n');
    const [, source] = parseNdjson(body);
    expect(source.value).toEqual({ name: 'café é', big: 12345678901234567890 });
    expect(Buffer.from(source.bytes).equals(body.subarray(13, body.length - 1))).toBe(true);
  });

  it('gives an empty body no lines, leaving the verdict to the API', () => {
    expect(parseNdjson('')).toEqual([]);
    expect(parseNdjson('\n\n')).toEqual([]);
  });

  it('requires the final newline', () => {
    expect(refusal(() => parseNdjson('{"index":{}}\n{"a":1}'))).toEqual([
      400,
      'illegal_argument_exception',
      'The bulk request must be terminated by a newline [\\n]',
    ]);
  });

  it('names the bad line and the column within it', () => {
    const e = failure(() => parseNdjson('{"index":{}}\n{"a":1}\n\n{"b": x}\n'));
    const message = `Unrecognized token 'x': was expecting ${KINDS}`;
    expect([e.status, e.type, e.reason]).toEqual([400, 'x_content_parse_exception', `[4:7] ${message}`]);
    expect(e.causedBy?.reason).toBe(`${message}\n at [Source: ${SOURCE}; line: 4, column: 7]`);
  });

  it('reports a line cut short at the end of that line', () => {
    expect(failure(() => parseNdjson('{"index":{}}\r\n{"a":\r\n')).reason).toBe('[2:6] Unexpected end-of-input within/between Object entries');
  });

  it('parses a large body in passes of the event loop to the same lines, and names a bad line as at once', async () => {
    const pairs = Array.from({ length: 6000 }, (_, i) => `{"index":{"_id":"${i}"}}\n{"n":${i},"text":"${'x'.repeat(i % 40)}"}\n`);
    const text = pairs.join('');
    expect(text.length).toBeGreaterThan(100_000);
    const read = (lines: NdjsonLine[]) => lines.map((line) => [line.value, line.bytes.toString()]);
    expect(read(await parseNdjsonInPasses(text))).toEqual(read(parseNdjson(text)));
    const broken = pairs.slice(0, 5000).join('') + '{"b": x}\n' + pairs.slice(5000).join('');
    const atOnce = failure(() => parseNdjson(broken));
    const inPasses = await parseNdjsonInPasses(broken).then(
      () => undefined,
      (error: unknown) => error as EsError,
    );
    expect(atOnce.reason).toBe(`[10001:7] Unrecognized token 'x': was expecting ${KINDS}`);
    expect([inPasses?.status, inPasses?.type, inPasses?.reason]).toEqual([atOnce.status, atOnce.type, atOnce.reason]);
  });
});
