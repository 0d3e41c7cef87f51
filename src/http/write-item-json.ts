/**
 * A bulk item's JSON, written as bytes field by field: a `_bulk` of 10,000 documents answers 10,000
 * of them, and building each as a string, then joining and encoding them, cost more than a
 * microsecond a document. The fields come in Elasticsearch's order (DocWriteResponse, then the
 * item's `status`); the parts every item of an index shares are encoded once.
 *
 * @example
 * const out = new JsonBytes();
 * new WriteItemJson().write(out, 'index', { _index: 'a', _id: '1', _version: 1, result: 'created', _shards: { total: 1, successful: 1, failed: 0 }, _seq_no: 0, _primary_term: 1, status: 201 });
 * out.take().toString();
 * // '{"index":{"_index":"a","_id":"1","_version":1,"result":"created","_shards":{"total":1,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1,"status":201}}'
 */
import type { WriteItem } from '../engine/engine.ts';
import { JsonBytes } from './json-bytes.ts';

export class WriteItemJson {
  /** An item's start up to its `_id`'s value, the same for every item of an action on an index: kept from the last item. */
  #head = { action: '', index: '', bytes: new Uint8Array() };

  /** From the result to the `_seq_no` key, the same for an index's items of one result: kept from the last item. */
  #middle: { result: string; forced: boolean; shards: WriteItem['_shards'] | undefined; bytes: Uint8Array } = { result: '', forced: false, shards: undefined, bytes: new Uint8Array() };

  /** From the `_primary_term` key to the item's end, the same for items of one status: kept from the last item. */
  #tail = { primaryTerm: -1, status: -1, bytes: new Uint8Array() };

  write(out: JsonBytes, action: string, item: WriteItem): void {
    out.raw(this.#headOf(action, item._index));
    out.string(item._id);
    out.raw(VERSION);
    out.number(item._version);
    out.raw(this.#middleOf(item));
    out.number(item._seq_no);
    out.raw(this.#tailOf(item));
  }

  #headOf(action: string, index: string): Uint8Array {
    const head = this.#head;
    if (action !== head.action || index !== head.index) this.#head = { action, index, bytes: Buffer.from(`{${JSON.stringify(action)}:{"_index":${JSON.stringify(index)},"_id":`) };
    return this.#head.bytes;
  }

  #middleOf({ result, forced_refresh, _shards: shards }: WriteItem): Uint8Array {
    const forced = forced_refresh === true;
    const middle = this.#middle;
    if (result !== middle.result || forced !== middle.forced || shards !== middle.shards) {
      const text = `,"result":${JSON.stringify(result)}${forced ? ',"forced_refresh":true' : ''},"_shards":{"total":${shards.total},"successful":${shards.successful},"failed":${shards.failed}},"_seq_no":`;
      this.#middle = { result, forced, shards, bytes: Buffer.from(text) };
    }
    return this.#middle.bytes;
  }

  #tailOf({ _primary_term: primaryTerm, status }: WriteItem): Uint8Array {
    const tail = this.#tail;
    if (primaryTerm !== tail.primaryTerm || status !== tail.status) {
      this.#tail = { primaryTerm, status, bytes: Buffer.from(`,"_primary_term":${JSON.stringify(primaryTerm)},"status":${JSON.stringify(status)}}}`) };
    }
    return this.#tail.bytes;
  }
}

const VERSION = Buffer.from(',"_version":');
