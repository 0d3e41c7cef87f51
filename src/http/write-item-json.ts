/**
 * A bulk item's JSON, written field by field: a `_bulk` of 10,000 documents answers 10,000 of them,
 * and building an object for each to hand to `JSON.stringify` cost about a microsecond a document.
 * The fields come in Elasticsearch's order (DocWriteResponse, then the item's `status`).
 *
 * @example
 * new WriteItemJson().write('index', { _index: 'a', _id: '1', _version: 1, result: 'created', _shards: { total: 1, successful: 1, failed: 0 }, _seq_no: 0, _primary_term: 1, status: 201 })
 * // '{"index":{"_index":"a","_id":"1","_version":1,"result":"created","_shards":{"total":1,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1,"status":201}}'
 */
import type { WriteItem } from '../engine/engine.ts';

export class WriteItemJson {
  /** An item's start up to its `_id`'s value, the same for every item of an action on an index: kept from the last item. */
  #head = { action: '', index: '', text: '' };

  /** `_shards` as JSON, kept for the last object written (an index's writes share one). */
  #shards: { of: WriteItem['_shards'] | undefined; text: string } = { of: undefined, text: '' };

  write(action: string, item: WriteItem): string {
    return (
      `${this.#headOf(action, item._index)}${string(item._id)},"_version":${item._version},"result":"${item.result}"` +
      `${item.forced_refresh ? ',"forced_refresh":true' : ''},"_shards":${this.#shardsOf(item._shards)}` +
      `,"_seq_no":${item._seq_no},"_primary_term":${item._primary_term},"status":${item.status}}}`
    );
  }

  #shardsOf(shards: WriteItem['_shards']): string {
    if (this.#shards.of !== shards) this.#shards = { of: shards, text: `{"total":${shards.total},"successful":${shards.successful},"failed":${shards.failed}}` };
    return this.#shards.text;
  }

  #headOf(action: string, index: string): string {
    const head = this.#head;
    if (action !== head.action || index !== head.index) this.#head = { action, index, text: `{${string(action)}:{"_index":${string(index)},"_id":` };
    return this.#head.text;
  }
}

/** A JSON string: most names and ids need no escaping, and are checked for it before paying for `JSON.stringify`. */
function string(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

// Quotes, backslashes, control characters and lone surrogates (which JSON.stringify writes as escapes).
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
