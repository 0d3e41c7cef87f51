/**
 * This node as Elasticsearch's APIs name and describe it: one home for its id (task ids, shard
 * failures, `_nodes`, `_tasks`) and its description (`_nodes/stats`, `_tasks` lists).
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';

/** A stable node id in ES's form (22 URL-safe base64 characters), from the host name. */
export const NODE_ID = createHash('sha256').update(hostname()).digest('base64url').slice(0, 22);

/** The node's name, address and roles, as ES lists a node. */
export function describeNode() {
  return { name: hostname(), transport_address: '127.0.0.1:9300', host: '127.0.0.1', ip: '127.0.0.1:9300', roles: ['data', 'ingest', 'master'] };
}
