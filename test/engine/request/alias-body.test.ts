/**
 * Alias bodies' flags (`is_write_index`, `is_hidden`, `must_exist`), read with `parser.booleanValue()`
 * as ES's alias parsers read them (src/engine/booleans.ts), what fails wrapped naming the field.
 */
import { describe, expect, it } from 'vitest';
import { parseAliasActions, parseAliasProps } from '../../../src/engine/request/alias-body.ts';
import { failure } from './failure.ts';

describe('alias flags', () => {
  it('take JSON booleans, the words as strings, and the empty string as false', () => {
    expect(parseAliasProps({ is_write_index: true, is_hidden: 'false' }, 'a')).toEqual({ isWriteIndex: true, isHidden: false });
    expect(parseAliasProps({ is_write_index: '' }, 'a')).toEqual({ isWriteIndex: false });
    expect(parseAliasActions({ actions: [{ remove: { index: 'i', alias: 'a', must_exist: 'true' } }] })).toEqual([{ type: 'remove', indices: ['i'], aliases: ['a'], mustExist: true }]);
  });

  it("refuse another word as the field's parse failure, caused by the words' error, and another type as the parse failure alone", () => {
    const word = failure(() => parseAliasProps({ is_hidden: 'yes' }, 'a'));
    expect([word.type, word.reason, word.causedBy?.reason]).toEqual(['x_content_parse_exception', '[a] failed to parse field [is_hidden]', 'Failed to parse value [yes] as only [true] or [false] are allowed.']);
    const number = failure(() => parseAliasProps({ is_write_index: 1 }, 'a'));
    expect([number.type, number.reason, number.causedBy]).toEqual(['x_content_parse_exception', '[a] failed to parse field [is_write_index]', undefined]);
  });
});
