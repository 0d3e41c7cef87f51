/**
 * Text as Elasticsearch's Java writes it, so that what a reindex from remote sends, and the errors
 * and descriptions it answers, compare equal to ES's: `URLEncoder`'s form encoding, the order a
 * `HashMap` iterates its keys in, `toString` of JSON values and their Java classes, and maps
 * written as `XContentBuilder` writes them.
 */
import { isObject } from '../patterns.ts';

/** `URLEncoder.encode`: letters, digits and `.-*_` kept, space as `+`, all else `%XX` of its UTF-8. */
export function formEncode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Java's `String.hashCode`, spread as `HashMap.hash` spreads it. */
function javaHash(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
  return h ^ (h >>> 16);
}

/**
 * The buckets a `HashMap` holding `count` keys has: grown from 16 by doubling past 3/4 full, or, for
 * a copy (`new HashMap<>(map)`), the power of two at least `ceil(count / 0.75)`.
 */
export function hashTableSize(count: number, copy = false): number {
  if (copy) {
    let size = 1;
    while (size < Math.ceil(count / 0.75)) size *= 2;
    return size;
  }
  let size = 16;
  while (count > size * 0.75) size *= 2;
  return size;
}

/** The order a `java.util.HashMap` iterates keys inserted in this order: by bucket, then insertion. */
export function hashMapOrder(keys: string[], tableSize = hashTableSize(keys.length)): string[] {
  return keys
    .map((key, at) => ({ key, at, bucket: javaHash(key) & (tableSize - 1) }))
    .sort((a, b) => a.bucket - b.bucket || a.at - b.at)
    .map(({ key }) => key);
}

/** A JSON value as Java's `toString` prints it (lists `[a, b]`, maps `{k=v}` in `HashMap` order). */
export function javaString(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(javaString).join(', ')}]`;
  if (isObject(value)) return `{${hashMapOrder(Object.keys(value)).map((key) => `${key}=${javaString(value[key])}`).join(', ')}}`;
  return String(value);
}

export function javaClass(value: unknown): string {
  if (typeof value === 'string') return 'java.lang.String';
  if (typeof value === 'boolean') return 'java.lang.Boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'java.lang.Integer' : 'java.lang.Double';
  return 'java.util.ArrayList';
}

/**
 * JSON as ES writes a map it read (`XContentBuilder.map`): keys in `HashMap` order; pretty-printed as
 * Jackson's default printer with two-space indents does (`"key" : value`, `{ }` and `[ ]` when empty).
 */
export function javaJson(value: unknown, pretty: boolean, depth = 0): string {
  const newline = pretty ? `\n${'  '.repeat(depth + 1)}` : '';
  const close = pretty ? `\n${'  '.repeat(depth)}` : '';
  if (Array.isArray(value)) {
    if (value.length === 0) return pretty ? '[ ]' : '[]';
    return `[${value.map((item) => newline + javaJson(item, pretty, depth + 1)).join(',')}${close}]`;
  }
  if (isObject(value)) {
    const keys = hashMapOrder(Object.keys(value));
    if (keys.length === 0) return pretty ? '{ }' : '{}';
    const entries = keys.map((key) => `${newline}${JSON.stringify(key)}${pretty ? ' : ' : ':'}${javaJson(value[key], pretty, depth + 1)}`);
    return `{${entries.join(',')}${close}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
