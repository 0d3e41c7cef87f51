import { describe, expect, it } from 'vitest';
import { errorBody } from '../../src/http/error-response.ts';
import { bodyKind, RESPONSE_CONTENT_TYPE, unsupportedMediaType } from '../../src/http/media-type.ts';

describe('bodyKind', () => {
  it.each([
    ['application/json', 'json'],
    ['application/json; charset=UTF-8', 'json'],
    ['Application/JSON;Charset=utf-8', 'json'],
    ['application/x-ndjson', 'ndjson'],
    ['application/vnd.elasticsearch+json; compatible-with=7', 'json'],
    ['application/vnd.elasticsearch+json; compatible-with=8', 'json'],
    ['application/vnd.elasticsearch+json;compatible-with=9', 'json'],
    ['APPLICATION/VND.ELASTICSEARCH+JSON; COMPATIBLE-WITH=9; charset=utf-8', 'json'],
    ['application/vnd.elasticsearch+x-ndjson; compatible-with=9', 'ndjson'],
    ['application/vnd.elasticsearch+x-ndjson; compatible-with=8', 'ndjson'],
    ['text/plain;charset=UTF-8', 'json'],
    ['application/x-www-form-urlencoded', 'json'],
  ])('%s is %s', (contentType, kind) => {
    expect(bodyKind(contentType)).toBe(kind);
  });

  it.each([
    ['application/xml'],
    ['application/yaml'],
    ['application/smile'],
    ['text/html'],
    ['application/vnd.elasticsearch+json'],
    ['application/vnd.elasticsearch+json; compatible-with=6'],
    ['application/json; compatible-with=10'],
    [''],
  ])('%j is not readable', (contentType) => {
    expect(bodyKind(contentType)).toBeUndefined();
  });

  it('reads no header as no known kind', () => {
    expect(bodyKind(undefined)).toBeUndefined();
  });
});

describe('unsupportedMediaType', () => {
  it("is ES's 406 media_type_header_exception, naming the header value in its cause", () => {
    const body = errorBody(unsupportedMediaType('application/xml'));
    expect(body.status).toBe(406);
    expect(body.error).toMatchObject({
      type: 'media_type_header_exception',
      reason: 'Invalid media-type value on headers [Content-Type]',
      root_cause: [{ type: 'media_type_header_exception', reason: 'Invalid media-type value on headers [Content-Type]' }],
      caused_by: { type: 'illegal_argument_exception', reason: 'Content-Type header [application/xml] is not supported' },
    });
  });

  it('says when the header is missing', () => {
    expect(unsupportedMediaType(undefined).causedBy?.reason).toBe('Content-Type header is missing');
  });
});

it('responses are UTF-8 JSON', () => {
  expect(RESPONSE_CONTENT_TYPE).toBe('application/json; charset=UTF-8');
});
