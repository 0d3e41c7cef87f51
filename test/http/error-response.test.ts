import { describe, expect, it } from 'vitest';
import { allShardsFailed, badRequest, EsError, illegalArgument, indexNotFound, toEsError } from '../../src/engine/errors.ts';
import { errorBody, internalErrorBody } from '../../src/http/error-response.ts';

describe('errorBody', () => {
  it('repeats a top-level error as its own root cause', () => {
    const reason = '[from] parameter cannot be negative but was [-2]';
    expect(errorBody(illegalArgument(reason))).toEqual({
      error: { root_cause: [{ type: 'illegal_argument_exception', reason }], type: 'illegal_argument_exception', reason },
      status: 400,
    });
  });

  it('prints the fields beside type and reason, in the root cause too', () => {
    const fields = { 'resource.type': 'index_or_alias', 'resource.id': 'foo', index_uuid: '_na_', index: 'foo' };
    const cause = { type: 'index_not_found_exception', reason: 'no such index [foo]', ...fields };
    expect(errorBody(indexNotFound('foo'))).toEqual({ error: { root_cause: [cause], ...cause }, status: 404 });
    expect(JSON.stringify(errorBody(indexNotFound('foo')).error)).toMatch(/^\{"root_cause":\[.*\],"type":"index_not_found_exception","reason"/);
  });

  it('nests caused_by recursively, without root_cause inside it, and keeps it out of root_cause', () => {
    const innermost = badRequest('json_parse_exception', 'Unexpected character');
    const middle = new EsError(400, 'middle_exception', 'middle', { detail: 1 }, innermost);
    const body = errorBody(badRequest('parse_exception', '[1:2] Unexpected character', {}, middle));
    expect(body.error.root_cause).toEqual([{ type: 'parse_exception', reason: '[1:2] Unexpected character' }]);
    expect(body.error.caused_by).toEqual({
      type: 'middle_exception',
      reason: 'middle',
      detail: 1,
      caused_by: { type: 'json_parse_exception', reason: 'Unexpected character' },
    });
  });

  it("gives a query clause's parse failure the query's own error as root cause, and keeps JSON syntax errors as detail", () => {
    const inner = badRequest('parsing_exception', 'unknown query [boool] did you mean [bool]?');
    const wrapped = errorBody(badRequest('x_content_parse_exception', '[bool] failed to parse field [must]', {}, inner));
    expect(wrapped.error.root_cause).toEqual([{ type: 'parsing_exception', reason: 'unknown query [boool] did you mean [bool]?' }]);
    expect(wrapped.error.type).toBe('x_content_parse_exception');
    const syntax = errorBody(badRequest('x_content_parse_exception', '[1:2] Unexpected character', {}, badRequest('json_parse_exception', 'Unexpected character')));
    expect(syntax.error.root_cause).toEqual([{ type: 'x_content_parse_exception', reason: '[1:2] Unexpected character' }]);
  });

  it('gives a search phase failure its shard error as root cause and caused_by', () => {
    const shard = illegalArgument('Result window is too large');
    const body = errorBody(allShardsFailed([{ index: 'test_1', error: shard }]));
    expect(body.status).toBe(400);
    expect(body.error.root_cause).toEqual([{ type: 'illegal_argument_exception', reason: 'Result window is too large' }]);
    expect(body.error).toMatchObject({ type: 'search_phase_execution_exception', reason: 'all shards failed', phase: 'query', grouped: true });
    expect(body.error.caused_by).toEqual({ type: 'illegal_argument_exception', reason: 'Result window is too large' });
  });
});

describe('unexpected errors', () => {
  it('toEsError passes EsError through and wraps anything else as a 500 exception', () => {
    const e = illegalArgument('x');
    expect(toEsError(e)).toBe(e);
    expect(toEsError(new TypeError('boom'))).toMatchObject({ status: 500, type: 'exception', reason: 'boom' });
    expect(toEsError('plain')).toMatchObject({ status: 500, type: 'exception', reason: 'plain' });
  });

  it('internalErrorBody renders a bug in the ES shape', () => {
    expect(internalErrorBody(new Error('boom'))).toEqual({
      error: { root_cause: [{ type: 'exception', reason: 'boom' }], type: 'exception', reason: 'boom' },
      status: 500,
    });
  });
});
