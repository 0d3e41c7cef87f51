/**
 * The HTTP app over a temporary engine, driven through `app.request()` (no socket), plus the
 * assertions every suite repeats: ES's error shape and the headers every response carries.
 */
import { expect } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import type { NodeSettings } from '../../src/engine/node-settings.ts';
import { shardFor } from '../../src/engine/routing.ts';
import { compareTerms } from '../../src/engine/terms.ts';
import { createApp } from '../../src/http/app.ts';
import { tempEngine } from '../engine/helpers.ts';

/** Response bodies are read field by field, as ES's clients do. */
export type Json = any;

export interface Reply {
  status: number;
  headers: Headers;
  /** The parsed body; undefined when there is none (HEAD). */
  body: Json;
  text: string;
}

export interface TestApp {
  app: ReturnType<typeof createApp>;
  engine: Engine;
  close: () => Promise<void>;
  /** A request with a JSON body (objects are serialized; strings are sent as they are). */
  json: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Reply>;
  /** A `_bulk` request: each item is one NDJSON line, the body ends with a newline. */
  bulk: (path: string, lines: unknown[], query?: string) => Promise<Reply>;
  /** Creates an index with these settings and mappings; fails the test unless it is acknowledged. */
  createIndex: (name: string, settings?: Record<string, unknown>, mappings?: Record<string, unknown>) => Promise<void>;
}

/** `settings` are the engine's node settings (node-settings.ts), the rest the app's options. */
export function testApp({ settings, ...options }: { maxBodyBytes?: number; settings?: Partial<NodeSettings> } = {}): TestApp {
  const { engine, close } = tempEngine({ settings });
  const app = createApp({ engine, ...options });
  const json: TestApp['json'] = async (method, path, body, headers = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await app.request(path, init);
    const text = await res.text();
    let parsed: Json;
    if (text !== '') parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  const bulk: TestApp['bulk'] = (path, lines, query = '') =>
    json('POST', `${path}${query}`, lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
  const createIndex: TestApp['createIndex'] = async (name, settings, mappings) => {
    const res = await json('PUT', `/${name}`, { ...(settings && { settings }), ...(mappings && { mappings }) });
    expect(res.status, res.text).toBe(200);
  };
  return { app, engine, close, json, bulk, createIndex };
}

/** ES's error body: `{"error":{"root_cause":[…],"type":…,"reason":…},"status":N}` with a matching HTTP status. */
export function expectError(res: Reply, status: number, type: string, reason?: string | RegExp): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body.status).toBe(status);
  expect(res.body.error.type).toBe(type);
  expect(Array.isArray(res.body.error.root_cause)).toBe(true);
  expect(res.body.error.root_cause.length).toBeGreaterThan(0);
  if (typeof reason === 'string') expect(res.body.error.reason).toBe(reason);
  else if (reason) expect(res.body.error.reason).toMatch(reason);
}

/** The 400 a search answers when every shard failed with `cause`. */
export function expectShardFailure(res: Reply, causeType: string, causeReason: string | RegExp): void {
  expectError(res, 400, 'search_phase_execution_exception', 'all shards failed');
  expect(res.body.error.phase).toBe('query');
  expect(res.body.error.grouped).toBe(true);
  const [root] = res.body.error.root_cause;
  expect(res.body.error.root_cause).toHaveLength(1);
  expect(root.type).toBe(causeType);
  if (typeof causeReason === 'string') expect(root.reason).toBe(causeReason);
  else expect(root.reason).toMatch(causeReason);
  expect(res.body.error.failed_shards[0].reason.type).toBe(causeType);
}

/** What every response must carry: the product header the official client checks, and JSON. */
export function expectEsHeaders(res: Reply): void {
  expect(res.headers.get('x-elastic-product')).toBe('Elasticsearch');
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/(json|vnd\.elasticsearch\+json)/);
}

/** The ids of a search response's hits, in order. */
export const ids = (res: Reply): string[] => res.body.hits.hits.map((h: { _id: string }) => h._id);

/** A document as a model of ES places it: the shard its `_id` routes to, and its ordinal there (write order). */
export interface ModelDoc {
  id: string;
  shard: number;
  ord: number;
  source: Record<string, unknown>;
}

export type SortKey = [(doc: ModelDoc) => unknown, 'asc' | 'desc'];

/**
 * Indices loaded through `_bulk` and the model of where their documents are, which gives ES's
 * order for a sort: each key (missing values last), then shard index, then the ordinal in the shard.
 */
export class Corpus {
  readonly docs = new Map<string, ModelDoc[]>();

  constructor(private readonly t: TestApp) {}

  /** Creates `index` and writes each batch with `?refresh=true`, so each is a segment of its own. */
  async load(index: string, shards: number, batches: Record<string, unknown>[][], settings: object = {}): Promise<void> {
    await this.t.createIndex(index, { number_of_shards: shards, ...settings });
    const docs: ModelDoc[] = [];
    const perShard = new Array(shards).fill(0);
    for (const batch of batches) {
      const lines = batch.flatMap((source) => {
        const id = `${index}-${docs.length}`;
        const shard = shardFor(id, shards);
        docs.push({ id, shard, ord: perShard[shard]++, source });
        return [{ index: { _id: id } }, source];
      });
      expect((await this.t.bulk(`/${index}/_bulk`, lines, '?refresh=true')).body.errors).toBe(false);
    }
    this.docs.set(index, docs);
  }

  doc(index: string, id: string): ModelDoc {
    return this.docs.get(index)!.find((d) => d.id === id)!;
  }

  /** The ids of `index` in ES's order for these keys (none: match_all by score). */
  expected(index: string, keys: SortKey[] = []): string[] {
    const compare = (a: unknown, b: unknown) => (typeof a === 'string' ? compareTerms(a, b as string) : (a as number) - (b as number));
    return [...this.docs.get(index)!]
      .sort((a, b) => {
        for (const [key, order] of keys) {
          const x = key(a), y = key(b);
          if (x === undefined || y === undefined) {
            if (x !== y) return x === undefined ? 1 : -1;
            continue;
          }
          const c = compare(x, y);
          if (c !== 0) return order === 'asc' ? c : -c;
        }
        return a.shard - b.shard || a.ord - b.ord;
      })
      .map((d) => d.id);
  }
}
