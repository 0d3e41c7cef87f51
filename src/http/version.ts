/**
 * Versions `GET /` reports. `version.number` is the Elasticsearch dialect deeppage speaks: tools pick
 * their requests by it (Beats, Logstash, elasticdump, and reindex-from-remote, which sends pre-2.0
 * requests to anything below 2.0), so it is the newest 8.x minor. deeppage's own version, from
 * package.json, goes in `build_type`.
 */
import { readFileSync } from 'node:fs';

export const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

/** The Elasticsearch version whose API deeppage answers with. */
export const ES_VERSION = '8.19.0';

/**
 * The OpenSearch version `GET /` reports under `compatibility.distribution: opensearch`: the last 2.x,
 * whose API (point in time included) deeppage answers; OpenSearch's clients, 2.x and 3.x, accept
 * any version whose `distribution` is `opensearch`.
 */
export const OPENSEARCH_VERSION = '2.19.0';
