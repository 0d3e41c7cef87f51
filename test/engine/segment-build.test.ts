/**
 * Sealing (src/engine/segments/build.ts): a segment built from the write buffer's columns holds what
 * a plain reference makes of the same documents one by one — the live documents taken, in seq order,
 * with their ids, seqs, versions, routings, and each field's column or text index.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSegment } from '../../src/engine/segments/build.ts';
import { idHash } from '../../src/engine/segments/ids.ts';
import { buildTextIndex } from '../../src/engine/segments/postings.ts';
import { packSeveral, type FieldColumn, type Segment } from '../../src/engine/segments/segment.ts';
import { WriteBuffer } from '../../src/engine/segments/write-buffer.ts';
import { finish, SLICE } from '../../src/engine/steps.ts';
import { compareTerms } from '../../src/engine/terms.ts';

type Family = 'number' | 'keyword' | 'text';
const FAMILIES: Record<string, Family | undefined> = { n: 'number', k: 'keyword', x: 'text', u: undefined };

interface Doc {
  id: string;
  routing?: string;
  /** Field, value, field, value… as mapping.ts extracts them. */
  values: (string | number)[];
}

const VALUE: Record<string, fc.Arbitrary<string | number>> = {
  n: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true, noDefaultInfinity: true })),
  k: fc.oneof(fc.constantFrom('a', 'b', 'ä', '\u{1F600}', '\uE000'), fc.string({ unit: 'binary', maxLength: 3 })),
  x: fc.constantFrom('red fox', 'the fox', 'Blue', ''),
  u: fc.constantFrom('unmapped'),
};
const DOC: fc.Arbitrary<Doc> = fc.record({
  id: fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }),
  routing: fc.option(fc.constantFrom('r1', 'r2'), { nil: undefined }),
  values: fc.array(fc.constantFrom('n', 'k', 'x', 'u').chain((field) => VALUE[field].map((value) => [field, value] as const)), { maxLength: 5 }).map((pairs) => pairs.flat()),
});

/** The reference: each field's column from the documents' values, one document at a time. */
function referenceColumn(docs: readonly Doc[], field: string, family: 'number' | 'keyword'): FieldColumn | undefined {
  const lists = docs.map((doc) => doc.values.flatMap((value, v) => (v % 2 === 1 && doc.values[v - 1] === field ? [value] : [])));
  if (lists.every((list) => list.length === 0)) return undefined;
  if (family === 'number') {
    const min = new Float64Array(docs.length).fill(NaN), max = min.slice();
    const several: [number, number[]][] = [];
    lists.forEach((list, i) => {
      if (list.length === 0) return;
      min[i] = Math.min(...(list as number[]));
      max[i] = Math.max(...(list as number[]));
      if (min[i] !== max[i]) several.push([i, list as number[]]);
    });
    return several.length ? { kind: 'number', min, max, several: packSeveral(several, Float64Array) } : { kind: 'number', min };
  }
  const terms = [...new Set(lists.flat() as string[])].sort(compareTerms);
  const min = new Int32Array(docs.length).fill(-1), max = min.slice();
  const several: [number, number[]][] = [];
  lists.forEach((list, i) => {
    if (list.length === 0) return;
    const ordinals = [...new Set(list.map((term) => terms.indexOf(term as string)))].sort((a, b) => a - b);
    min[i] = ordinals[0];
    max[i] = ordinals[ordinals.length - 1];
    if (ordinals.length > 1) several.push([i, ordinals]);
  });
  return several.length ? { kind: 'keyword', terms, min, max, several: packSeveral(several, Int32Array) } : { kind: 'keyword', terms, min };
}

function checkSegment(segment: Segment, docs: readonly Doc[], seqs: readonly number[]): void {
  expect(segment.count).toBe(docs.length);
  expect([...segment.seqs]).toEqual(seqs);
  docs.forEach((doc, i) => {
    expect(segment.ids.id(i)).toBe(doc.id);
    expect(segment.ids.find(doc.id)).toBe(i);
  });
  expect([...segment.routings]).toEqual(docs.flatMap((doc, i) => (doc.routing === undefined ? [] : [[i, doc.routing]])));
  for (const family of ['number', 'keyword'] as const) {
    const field = family === 'number' ? 'n' : 'k';
    expect(segment.columns.get(field), field).toEqual(referenceColumn(docs, field, family));
  }
  const texts = docs.map((doc) => doc.values.flatMap((value, v) => (v % 2 === 1 && doc.values[v - 1] === 'x' ? [value] : [])));
  const expected = texts.some((list) => list.length > 0) ? finish(buildTextIndex((i) => (texts[i].length ? texts[i] : undefined), docs.length)) : undefined;
  expect(segment.texts.get('x')).toEqual(expected);
  expect(segment.columns.has('u')).toBe(false);
}

describe('buildSegment', () => {
  it('seals the live documents after a seq as the reference builds them, through removals and earlier seals', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(DOC, fc.boolean()), { maxLength: 60 }), fc.nat({ max: 60 }), (writes, sealAfter) => {
        const buffer = new WriteBuffer();
        const live = new Map<string, { doc: Doc; seq: number }>();
        writes.forEach(([doc, thenRemoved], seq) => {
          if (buffer.remove(doc.id) >= 0) live.delete(doc.id);
          buffer.add(doc.id, idHash(doc.id), seq, seq + 1, doc.values, doc.routing);
          live.set(doc.id, { doc, seq });
          if (thenRemoved && seq % 3 === 0) {
            buffer.remove(doc.id);
            live.delete(doc.id);
          }
        });
        const kept = [...live.values()].filter((d) => d.seq > sealAfter - 1).sort((a, b) => a.seq - b.seq);
        const segment = finish(buildSegment(buffer.take(sealAfter - 1), (field) => FAMILIES[field]));
        checkSegment(segment, kept.map((d) => d.doc), kept.map((d) => d.seq));
        expect([...segment.versions]).toEqual(kept.map((d) => d.seq + 1));
      }),
    );
  });

  it('seals more documents than a slice, and ids past a piece of text', () => {
    const buffer = new WriteBuffer();
    const docs: Doc[] = Array.from({ length: 3 * SLICE }, (_, i) => ({ id: `document-${i}-${'x'.repeat(i % 5)}`, values: ['n', i % 11, 'k', `t${i % 13}`, 'n', i % 7] }));
    docs.forEach((doc, seq) => buffer.add(doc.id, idHash(doc.id), seq, 1, doc.values));
    for (let seq = 0; seq < docs.length; seq += 10) buffer.remove(docs[seq].id);
    const kept = docs.flatMap((doc, seq) => (seq % 10 === 0 ? [] : [{ doc, seq }]));
    checkSegment(finish(buildSegment(buffer.take(-1), (field) => FAMILIES[field])), kept.map((d) => d.doc), kept.map((d) => d.seq));
  });
});
