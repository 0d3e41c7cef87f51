/**
 * The cluster's kind from its `GET /` (src/front/cluster-kind.ts): against the bodies Elasticsearch 8
 * and OpenSearch 2 and 3 send (es-semantics.md, "GET / root info": ES has no `version.distribution`,
 * OpenSearch says `opensearch`), against their refusals, and against real deeppage servers answering
 * as either, one of them with security on.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readClusterKind, type ClusterGet } from '../../src/front/cluster-kind.ts';
import { tempDir } from '../engine/helpers.ts';
import { killAll, start } from './processes.ts';

/** Elasticsearch 8's `GET /` (MainResponse: no distribution, build_flavor, its tagline). */
const ES_8 = `{
  "name" : "es01",
  "cluster_name" : "docker-cluster",
  "cluster_uuid" : "3nRkY8kRQf2q9Xb6KkHh1A",
  "version" : {
    "number" : "8.15.0",
    "build_flavor" : "default",
    "build_type" : "docker",
    "build_hash" : "1a77947f34deddb41af25e6f0ddb8e830159c179",
    "build_date" : "2024-08-05T10:05:34.233336849Z",
    "build_snapshot" : false,
    "lucene_version" : "9.11.1",
    "minimum_wire_compatibility_version" : "7.17.0",
    "minimum_index_compatibility_version" : "7.0.0"
  },
  "tagline" : "You Know, for Search"
}
`;

/** OpenSearch 2's: `distribution` first in `version`, no build_flavor, its own tagline. */
const OPENSEARCH_2 = `{
  "name" : "opensearch-node1",
  "cluster_name" : "opensearch-cluster",
  "cluster_uuid" : "W0B8gPotTAajhMPbC9D4ww",
  "version" : {
    "distribution" : "opensearch",
    "number" : "2.11.0",
    "build_type" : "tar",
    "build_hash" : "4dcad6dd1fd45b6bd91f041a041829c8687278fa",
    "build_date" : "2023-10-13T02:55:55.511945994Z",
    "build_snapshot" : false,
    "lucene_version" : "9.7.0",
    "minimum_wire_compatibility_version" : "7.10.0",
    "minimum_index_compatibility_version" : "7.0.0"
  },
  "tagline" : "The OpenSearch Project: https://opensearch.org/"
}
`;

/** OpenSearch 3's: the same shape, compatible with 2.x only. */
const OPENSEARCH_3 = `{
  "name" : "a800",
  "cluster_name" : "opensearch",
  "cluster_uuid" : "i1xFMhksSuujE2zXlPNtfA",
  "version" : {
    "distribution" : "opensearch",
    "number" : "3.0.0",
    "build_type" : "deb",
    "build_hash" : "dc4efa821904cc2d7ea7ef61c0f577d3fc0d8be9",
    "build_date" : "2025-05-03T06:23:34.992456558Z",
    "build_snapshot" : false,
    "lucene_version" : "10.1.0",
    "minimum_wire_compatibility_version" : "2.19.0",
    "minimum_index_compatibility_version" : "2.0.0"
  },
  "tagline" : "The OpenSearch Project: https://opensearch.org/"
}
`;

/** Elasticsearch's 401 to a request without credentials. */
const ES_401 = JSON.stringify({
  error: {
    root_cause: [{ type: 'security_exception', reason: 'missing authentication credentials for REST request [/]', header: { 'WWW-Authenticate': ['Basic realm="security" charset="UTF-8"', 'ApiKey'] } }],
    type: 'security_exception',
    reason: 'missing authentication credentials for REST request [/]',
    header: { 'WWW-Authenticate': ['Basic realm="security" charset="UTF-8"', 'ApiKey'] },
  },
  status: 401,
});

const PASSWORD = 'housekeeping-pass-7';
const AUTHORIZATION = `Basic ${Buffer.from(`housekeeper:${PASSWORD}`).toString('base64')}`;

/** A cluster that answers `GET /` with this status and body, recording what it was sent. */
function cluster(status: number, body: string): ClusterGet & { sent: { path: string; headers: Record<string, string> }[] } {
  const sent: { path: string; headers: Record<string, string> }[] = [];
  return Object.assign(async (path: string, headers: Record<string, string>) => {
    sent.push({ path, headers });
    return { status, body };
  }, { sent });
}

async function failure(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('did not fail');
}

describe('readClusterKind', () => {
  it.each([
    ['Elasticsearch 8', ES_8, { distribution: 'elasticsearch', version: '8.15.0' }],
    ['OpenSearch 2', OPENSEARCH_2, { distribution: 'opensearch', version: '2.11.0' }],
    ['OpenSearch 3', OPENSEARCH_3, { distribution: 'opensearch', version: '3.0.0' }],
  ])('tells %s by version.distribution and reads version.number', async (_, body, kind) => {
    const get = cluster(200, body);
    expect(await readClusterKind(get)).toEqual(kind);
    expect(get.sent).toEqual([{ path: '/', headers: {} }]);
  });

  it("sends the front's own credentials when it has them", async () => {
    const get = cluster(200, ES_8);
    await readClusterKind(get, AUTHORIZATION);
    expect(get.sent).toEqual([{ path: '/', headers: { Authorization: AUTHORIZATION } }]);
  });

  it('says what the cluster answered when it is not a root info, and never the credentials', async () => {
    expect(await failure(readClusterKind(cluster(401, ES_401)))).toBe('the cluster answered GET / with status [401]: [security_exception: missing authentication credentials for REST request [/]]');
    // OpenSearch's security plugin answers a 401 in plain text.
    expect(await failure(readClusterKind(cluster(401, 'Unauthorized'), AUTHORIZATION))).toBe('the cluster answered GET / with status [401]: [Unauthorized]');
    expect(await failure(readClusterKind(cluster(503, '')))).toBe('the cluster answered GET / with status [503]: (an empty body)');
    expect(await failure(readClusterKind(cluster(200, '<html>\n<body>gateway</body>\n</html>')))).toBe("the cluster's answer to GET / is not JSON: [<html> <body>gateway</body> </html>]");
    expect(await failure(readClusterKind(cluster(200, '{"version":{}}')))).toBe('the cluster\'s answer to GET / has no version.number: [{"version":{}}]');
    expect(await failure(readClusterKind(cluster(200, '{"version":{"distribution":"quickwit","number":"0.8.0"}}')))).toBe("the cluster's answer to GET / names the distribution [quickwit], which the front does not know: it fronts elasticsearch and opensearch");
    expect(await failure(readClusterKind(cluster(500, 'x'.repeat(1000))))).toHaveLength('the cluster answered GET / with status [500]: ['.length + 300 + 2);
    // A proxy that echoes the request: the token and the password it holds are hidden.
    const echoed = await failure(readClusterKind(cluster(400, `bad request: Authorization: ${AUTHORIZATION} (password ${PASSWORD})`), AUTHORIZATION));
    expect(echoed).toBe('the cluster answered GET / with status [400]: [bad request: Authorization: Basic <hidden> (password <hidden>)]');
  });
});

describe('readClusterKind against deeppage servers', () => {
  const removals: (() => void)[] = [];
  afterAll(async () => {
    await killAll();
    removals.forEach((remove) => remove());
  });

  /** `GET {url}/` over HTTP, as the front's transport would send it. */
  const over = (url: string): ClusterGet => async (path, headers) => {
    const answer = await fetch(new URL(path, url), { headers });
    return { status: answer.status, body: await answer.text() };
  };

  it('tells Elasticsearch from OpenSearch (compatibility.distribution)', async () => {
    const [elasticsearch, opensearch] = await Promise.all([start([]), start(['-E', 'compatibility.distribution=opensearch'])]);
    expect(await readClusterKind(over(elasticsearch.url))).toEqual({ distribution: 'elasticsearch', version: expect.stringMatching(/^8\.\d+\.\d+$/) });
    expect(await readClusterKind(over(opensearch.url))).toEqual({ distribution: 'opensearch', version: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
  });

  it('reads a cluster with security on with its credentials, and says what a 401 said without them', async () => {
    const { dir, remove } = tempDir();
    removals.push(remove);
    const file = join(dir, 'credentials');
    const made = spawnSync(process.execPath, ['dist/credentials-cli.js', 'useradd', 'housekeeper', '-p', PASSWORD, '--file', file], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const secured = await start(['-E', `xpack.security.authc.file.path=${file}`]);
    expect((await readClusterKind(over(secured.url), AUTHORIZATION)).distribution).toBe('elasticsearch');
    const refused = await failure(readClusterKind(over(secured.url)));
    expect(refused).toMatch(/^the cluster answered GET \/ with status \[401\]: \[security_exception: missing authentication credentials for REST request \[\/\]\]$/);
    const wrong = `Basic ${Buffer.from('housekeeper:not-the-password').toString('base64')}`;
    const denied = await failure(readClusterKind(over(secured.url), wrong));
    expect(denied).toMatch(/^the cluster answered GET \/ with status \[401\]: /);
    expect(denied).not.toContain(wrong.slice(6));
    expect(denied).not.toContain('not-the-password');
  });
});
