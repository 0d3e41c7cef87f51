/**
 * `_reindex`'s `refresh`, a boolean (`paramAsBoolean("refresh", false)` in ES's
 * AbstractBaseReindexRestHandler), unlike a write's three-valued one: `wait_for` is refused.
 */
import { describe, expect, it } from 'vitest';
import { parseReindexRequest } from '../../../src/engine/request/reindex-params.ts';
import { refusal } from './failure.ts';

const body = { source: { index: 'src' }, dest: { index: 'dst' } };

describe('refresh', () => {
  it('is off unless given; bare, it is on', () => {
    expect(parseReindexRequest({}, body).refresh).toBe(false);
    expect(parseReindexRequest({ refresh: '' }, body).refresh).toBe(true);
    expect(parseReindexRequest({ refresh: 'true' }, body).refresh).toBe(true);
    expect(parseReindexRequest({ refresh: 'false' }, body).refresh).toBe(false);
  });

  it('takes only the words, wait_for included', () => {
    expect(refusal(() => parseReindexRequest({ refresh: 'wait_for' }, body))).toEqual([400, 'illegal_argument_exception', 'Failed to parse value [wait_for] as only [true] or [false] are allowed.']);
  });
});
