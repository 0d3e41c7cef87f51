/**
 * The few Elasticsearch calls the suites make outside the timed runs, over fetch. A server that
 * cannot be reached is an error naming the request and the cause; an answer with another status
 * than the one expected is a {@link WrongAnswer} quoting the start of the body.
 */
import { WrongAnswer } from './suite.ts';

const TIMEOUT_MS = 120_000;

export interface EsAnswer {
  status: number;
  json: unknown;
  /** From sending the request to the parsed answer. */
  ms: number;
}

/**
 * A base URL with credentials (`https://user:secret@host:9200`, as for a secured cluster) split into
 * the URL without them and the Basic `authorization` header they stand for: fetch refuses URLs with
 * credentials, and they must not reach logs or result files.
 */
export function withoutCredentials(base: string): { url: string; headers: Record<string, string> } {
  const url = new URL(base);
  if (url.username === '' && url.password === '') return { url: base, headers: {} };
  const user = decodeURIComponent(url.username), password = decodeURIComponent(url.password);
  url.username = url.password = '';
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return { url: url.href.replace(/\/$/, ''), headers: { authorization } };
}

export async function esRequest(endpoint: string, method: string, path: string, body?: string, contentType = 'application/json'): Promise<EsAnswer> {
  const started = performance.now();
  const { url: base, headers } = withoutCredentials(endpoint);
  let response: Response;
  try {
    response = await fetch(base + path, {
      method,
      body,
      headers: body === undefined ? headers : { ...headers, 'content-type': contentType },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`cannot reach ${base}: ${method} ${path}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WrongAnswer(`${method} ${base}${path}: ${response.status}, not JSON: ${text.slice(0, 300)}`);
  }
  return { status: response.status, json, ms: performance.now() - started };
}

/** A request that must answer `status` (default 200); returns the parsed body and the time taken. */
export async function esOk<T>(endpoint: string, method: string, path: string, body?: string, options: { status?: number; contentType?: string } = {}): Promise<{ body: T; ms: number }> {
  const answer = await esRequest(endpoint, method, path, body, options.contentType);
  const base = withoutCredentials(endpoint).url;
  const want = options.status ?? 200;
  if (answer.status !== want) {
    throw new WrongAnswer(`${method} ${base}${path}: status ${answer.status}, expected ${want}: ${JSON.stringify(answer.json).slice(0, 300)}`);
  }
  return { body: answer.json as T, ms: answer.ms };
}

export async function esCount(base: string, index: string): Promise<number> {
  const { body: { count } } = await esOk<{ count: unknown }>(base, 'GET', `/${encodeURIComponent(index)}/_count`);
  if (typeof count !== 'number') throw new WrongAnswer(`GET ${base}/${index}/_count: no count in the answer`);
  return count;
}

export async function esCreateIndex(base: string, index: string, shards: number, mappings: Record<string, unknown>): Promise<void> {
  await esOk(base, 'PUT', `/${encodeURIComponent(index)}`, JSON.stringify({ settings: { number_of_shards: shards }, mappings }));
}

export async function esRefresh(base: string, index: string): Promise<void> {
  await esOk(base, 'POST', `/${encodeURIComponent(index)}/_refresh`);
}

export interface BulkAnswer {
  errors: boolean;
  items: Record<string, { status: number; error?: unknown }>[];
}

/** Posts NDJSON to `_bulk`; every item must have succeeded and there must be `items` of them. */
export async function esBulk(base: string, path: string, ndjson: string, items: number): Promise<{ body: BulkAnswer; ms: number }> {
  const answered = await esOk<BulkAnswer>(base, 'POST', path, ndjson, { contentType: 'application/x-ndjson' });
  const answer = answered.body;
  if (answer.errors !== false) {
    const failed = answer.items?.map((item) => Object.values(item)[0]).find((item) => item.error !== undefined);
    throw new WrongAnswer(`POST ${base}${path}: errors is ${answer.errors}; first failure: ${JSON.stringify(failed).slice(0, 300)}`);
  }
  if (answer.items?.length !== items) throw new WrongAnswer(`POST ${base}${path}: ${answer.items?.length} items, expected ${items}`);
  return answered;
}
