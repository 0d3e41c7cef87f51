/**
 * The segment format (src/engine/segments/format.ts): a segment comes back from its bytes exactly,
 * and bytes it cannot trust (another format, a flipped bit, cut short) are refused; a node that
 * meets such a segment at start rebuilds the shard from its stored documents and says so.
 */
import fc from 'fast-check';
import { open } from 'lmdb';
import { describe, expect, it, vi } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import { searchRequest } from '../../src/engine/search/request.ts';
import { buildSegment } from '../../src/engine/segments/build.ts';
import { decodeSegment, encodeSegment, SEGMENT_FORMAT, SegmentFormatError } from '../../src/engine/segments/format.ts';
import { idHash } from '../../src/engine/segments/ids.ts';
import type { Segment } from '../../src/engine/segments/segment.ts';
import { WriteBuffer } from '../../src/engine/segments/write-buffer.ts';
import { finish } from '../../src/engine/steps.ts';
import { DocStore } from '../../src/store/doc-store.ts';
import { tempDir } from './helpers.ts';

const FAMILIES: Record<string, 'number' | 'keyword' | 'text'> = { n: 'number', m: 'number', k: 'keyword', t: 'keyword', x: 'text' };
const docsArb = fc.uniqueArray(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), { maxLength: 60 }).chain((ids) =>
  fc.tuple(
    ...ids.map((id) =>
      fc.record({
        id: fc.constant(id),
        version: fc.integer({ min: 1, max: 2 ** 40 }),
        routing: fc.option(fc.string({ unit: 'grapheme', maxLength: 4 }), { nil: undefined }),
        n: fc.option(fc.array(fc.double({ noNaN: true }), { minLength: 1, maxLength: 3 }), { nil: undefined }),
        m: fc.option(fc.array(fc.integer(), { minLength: 1, maxLength: 1 }), { nil: undefined }),
        k: fc.option(fc.array(fc.string({ unit: 'binary', maxLength: 5 }), { minLength: 1, maxLength: 3 }), { nil: undefined }),
        t: fc.option(fc.array(fc.constantFrom('a', 'b'), { minLength: 1, maxLength: 1 }), { nil: undefined }),
        x: fc.option(fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'C', ' ', '-', 'é', '中', "'"), maxLength: 12 }), { minLength: 1, maxLength: 3 }), { nil: undefined }),
      }),
    ),
  ),
);

function build(docs: { id: string; version: number; routing?: string; n?: number[]; m?: number[]; k?: string[]; t?: string[]; x?: string[] }[]): Segment {
  const buffer = new WriteBuffer();
  let seq = 0;
  for (const d of docs) {
    const values: (number | string)[] = [];
    for (const field of ['n', 'm', 'k', 't', 'x'] as const) for (const value of d[field] ?? []) values.push(field, value);
    seq += 1 + (d.version % 3);
    buffer.add(d.id, idHash(d.id), seq, d.version, values, d.routing);
  }
  return finish(buildSegment(buffer.take(-1), (field) => FAMILIES[field]));
}

describe('segment format', () => {
  it('gives back every column, id, seq, version and routing exactly', () => {
    fc.assert(
      fc.property(docsArb, (docs) => {
        const segment = build(docs);
        const back = decodeSegment(encodeSegment(segment));
        expect(back.count).toBe(segment.count);
        expect(back.seqs).toEqual(segment.seqs);
        expect(back.versions).toEqual(segment.versions);
        expect(back.ids.text).toBe(segment.ids.text);
        expect(back.ids.offsets).toEqual(segment.ids.offsets);
        expect(back.ids.hashes).toEqual(segment.ids.hashes);
        expect(back.ids.order).toEqual(segment.ids.order);
        docs.forEach((d, i) => expect(back.ids.find(d.id)).toBe(i));
        expect([...back.routings]).toEqual([...segment.routings]);
        expect([...back.columns.keys()]).toEqual([...segment.columns.keys()]);
        for (const [field, column] of segment.columns) expect(back.columns.get(field), field).toEqual(column);
        expect([...back.texts.keys()]).toEqual([...segment.texts.keys()]);
        for (const [field, text] of segment.texts) expect(back.texts.get(field), field).toEqual(text);
      }),
    );
  });

  it('refuses another format, a flipped bit and a cut-short record', () => {
    const bytes = encodeSegment(build([{ id: 'a', version: 1, n: [1], k: ['x'] }, { id: 'b', version: 2, k: ['y'] }]));
    const other = Buffer.from(bytes);
    other.writeUInt32LE(99, 4);
    expect(() => decodeSegment(other)).toThrow(new SegmentFormatError(`segment format [99] is not one this node reads (it reads [${SEGMENT_FORMAT}])`));
    for (let at = 16; at < bytes.length; at += 7) {
      const flipped = Buffer.from(bytes);
      flipped[at] ^= 0x10;
      expect(() => decodeSegment(flipped)).toThrow(SegmentFormatError);
    }
    expect(() => decodeSegment(bytes.subarray(0, bytes.length - 8))).toThrow(SegmentFormatError);
    expect(() => decodeSegment(Buffer.from('not a segment at all'))).toThrow(SegmentFormatError);
  });
});

describe('start-up with a segment it cannot read', () => {
  it('rebuilds the shard from its stored documents, says so, and drops the bad segment at the next flush', async () => {
    const { dir, remove } = tempDir();
    try {
      let engine = Engine.open(DocStore.open(dir));
      await engine.createIndex('books', { settings: { number_of_shards: 1 } });
      await engine.write(Array.from({ length: 50 }, (_, i) => ({ action: 'index' as const, index: 'books', id: String(i), source: { n: i } })), 'true');
      await engine.write([{ action: 'delete', index: 'books', id: '7' }], 'true');
      await engine.close();

      // Storage as another version of deeppage might leave it: a segment in a format this one does not know.
      const root = open({ path: dir, noSubdir: false });
      const segments = root.openDB<Buffer, (string | number)[]>({ name: 'segments', encoding: 'binary' });
      const keys = [...segments.getKeys()];
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const bytes = Buffer.from(segments.getBinary(key)!);
        bytes.writeUInt32LE(7, 4);
        await segments.put(key, bytes);
      }
      await root.close();

      const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        engine = Engine.open(DocStore.open(dir));
        expect(errors).toHaveBeenCalledWith(`deeppage: [books][0] cannot load its segments (segment format [7] is not one this node reads (it reads [${SEGMENT_FORMAT}])); rebuilding the shard from its stored documents`);
      } finally {
        errors.mockRestore();
      }
      const page = engine.search('books', searchRequest({ size: 100, sort: [{ kind: 'field', field: 'n', order: 'desc', missing: '_last' }] }));
      expect(page.hits.hits.map((hit) => hit._id)).toEqual(Array.from({ length: 50 }, (_, i) => String(49 - i)).filter((id) => id !== '7'));
      await engine.close();

      // The shutdown flushed a new commit point: the unreadable segments are gone, and the next start is quiet.
      const after = open({ path: dir, noSubdir: false });
      const left = [...after.openDB<Buffer, (string | number)[]>({ name: 'segments', encoding: 'binary' }).getKeys()];
      expect(left.some((key) => keys.some((old) => JSON.stringify(old) === JSON.stringify(key)))).toBe(false);
      await after.close();
      const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        engine = Engine.open(DocStore.open(dir));
        expect(quiet).not.toHaveBeenCalled();
        expect(engine.count('books').count).toBe(49);
        await engine.close();
      } finally {
        quiet.mockRestore();
      }
    } finally {
      remove();
    }
  });
});
