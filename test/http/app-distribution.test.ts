/**
 * `compatibility.distribution`: by default deeppage answers as Elasticsearch 8.x (`GET /` as it was,
 * the product header on every answer); set to `opensearch`, `GET /` answers as OpenSearch 2.x does
 * and no answer, error or text table included, carries Elasticsearch's product header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNodeSettings } from '../../src/engine/node-settings.ts';
import { EsError } from '../../src/engine/errors.ts';
import { ES_VERSION, OPENSEARCH_VERSION, VERSION } from '../../src/http/version.ts';
import { expectEsHeaders, testApp, type TestApp } from './app-helpers.ts';

/** Requests whose answers are made in different places: JSON, an error, a missing route, a text table, a search. */
const ANSWERS: [string, string][] = [['GET', '/'], ['GET', '/missing/_doc/1'], ['POST', '/_nope/_nope/_nope'], ['GET', '/_cat/indices'], ['GET', '/_search'], ['HEAD', '/']];

describe('compatibility.distribution', () => {
  it('is elasticsearch or opensearch, refused otherwise as Elasticsearch refuses a bad value', () => {
    expect(parseNodeSettings().distribution).toBe('elasticsearch');
    expect(parseNodeSettings({ 'compatibility.distribution': 'opensearch' }).distribution).toBe('opensearch');
    expect(parseNodeSettings({ 'compatibility.distribution': 'elasticsearch' }).distribution).toBe('elasticsearch');
    const refused = (() => {
      try {
        parseNodeSettings({ 'compatibility.distribution': 'solr' });
      } catch (error) {
        return error;
      }
    })() as EsError;
    expect(refused).toBeInstanceOf(EsError);
    expect(refused.status).toBe(400);
    expect(refused.type).toBe('illegal_argument_exception');
    expect(refused.reason).toBe('failed to parse value [solr] for setting [compatibility.distribution], must be one of [elasticsearch, opensearch]');
  });

  describe('elasticsearch (the default)', () => {
    let t: TestApp;
    beforeAll(() => (t = testApp()));
    afterAll(() => t.close());

    it('answers GET / as Elasticsearch 8.x, field for field in its order', async () => {
      const res = await t.json('GET', '/');
      expect(Object.keys(res.body)).toEqual(['name', 'cluster_name', 'cluster_uuid', 'version', 'tagline']);
      expect(JSON.stringify(res.body.version)).toBe(JSON.stringify({
        number: ES_VERSION, build_flavor: 'default', build_type: `deeppage-${VERSION}`, build_hash: 'unknown', build_date: '2026-11-22T00:00:00.000Z',
        build_snapshot: false, lucene_version: 'none', minimum_wire_compatibility_version: '7.17.0', minimum_index_compatibility_version: '7.0.0',
      }));
      expect(res.body.tagline).toBe('You Know, for Search');
    });

    it('sends the product header on every answer', async () => {
      for (const [method, path] of ANSWERS) expect((await t.json(method, path)).headers.get('x-elastic-product'), `${method} ${path}`).toBe('Elasticsearch');
      expectEsHeaders(await t.json('GET', '/'));
    });
  });

  describe('opensearch', () => {
    let t: TestApp;
    beforeAll(() => (t = testApp({ settings: { distribution: 'opensearch' } })));
    afterAll(() => t.close());

    it('answers GET / as OpenSearch 2.x', async () => {
      const res = await t.json('GET', '/');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['name', 'cluster_name', 'cluster_uuid', 'version', 'tagline']);
      expect(JSON.stringify(res.body.version)).toBe(JSON.stringify({
        distribution: 'opensearch', number: OPENSEARCH_VERSION, build_type: `deeppage-${VERSION}`, build_hash: 'unknown', build_date: '2026-11-22T00:00:00.000Z',
        build_snapshot: false, lucene_version: 'none', minimum_wire_compatibility_version: '7.10.0', minimum_index_compatibility_version: '7.0.0',
      }));
      expect(res.body.tagline).toBe('The OpenSearch Project: https://opensearch.org/');
      expect((await t.json('GET', '/?filter_path=version.distribution')).body).toEqual({ version: { distribution: 'opensearch' } });
    });

    it('sends no product header, whatever the answer', async () => {
      for (const [method, path] of ANSWERS) {
        const res = await t.json(method, path);
        expect(res.headers.get('x-elastic-product'), `${method} ${path}`).toBeNull();
        expect(res.headers.get('content-type'), `${method} ${path}`).not.toBeNull();
      }
    });
  });
});
