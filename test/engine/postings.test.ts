/**
 * Text fields' inverted indexes (src/engine/segments/postings.ts) against a plain reading of the
 * analyzer's tokens: every (term, document, positions) triple, the lengths and the statistics; and a
 * merge's index equals the index built from the kept documents directly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/engine/analysis/standard-analyzer.ts';
import { finish } from '../../src/engine/steps.ts';
import { buildTextIndex, concatTextIndexes, POSITION_INCREMENT_GAP, termNumber, type TextIndex } from '../../src/engine/segments/postings.ts';

const word = fc.constantFrom('fox', 'Fox', 'dog', "dog's", 'the', 'a-b', '中文', 'é', '42');
const value = fc.array(word, { maxLength: 6 }).map((words) => words.join(' '));
const docsArb = fc.array(fc.option(fc.array(value, { minLength: 1, maxLength: 3 }), { nil: undefined }), { maxLength: 30 });

/** term → doc → positions, read straight from the analyzer. */
function reference(docs: (string[] | undefined)[]): Map<string, Map<number, number[]>> {
  const out = new Map<string, Map<number, number[]>>();
  docs.forEach((values, doc) => {
    let position = 0;
    values?.forEach((v, i) => {
      if (i > 0) position += POSITION_INCREMENT_GAP;
      for (const term of analyze(v)) {
        if (!out.has(term)) out.set(term, new Map());
        const byDoc = out.get(term)!;
        if (!byDoc.has(doc)) byDoc.set(doc, []);
        byDoc.get(doc)!.push(position++);
      }
    });
  });
  return out;
}

function read(index: TextIndex): Map<string, Map<number, number[]>> {
  const out = new Map<string, Map<number, number[]>>();
  index.terms.forEach((term, t) => {
    const byDoc = new Map<number, number[]>();
    for (let p = index.starts[t]; p < index.starts[t + 1]; p++) {
      if (p > index.starts[t]) expect(index.docs[p]).toBeGreaterThan(index.docs[p - 1]);
      const from = index.positionStarts[p];
      byDoc.set(index.docs[p], Array.from(index.positions.subarray(from, from + index.freqs[p])));
    }
    out.set(term, byDoc);
    expect(termNumber(index, term)).toBe(t);
  });
  return out;
}

describe('text postings', () => {
  it('hold every token of every document at its position, with lengths and statistics', () => {
    fc.assert(
      fc.property(docsArb, (docs) => {
        const index = finish(buildTextIndex((i) => docs[i], docs.length));
        expect(read(index)).toEqual(reference(docs));
        const lengths = docs.map((values) => (values === undefined ? -1 : values.reduce((n, v) => n + analyze(v).length, 0)));
        expect(Array.from(index.lengths)).toEqual(lengths);
        expect(index.docCount).toBe(lengths.filter((l) => l > 0).length);
        expect(index.sumTotalTermFreq).toBe(lengths.filter((l) => l > 0).reduce((a, b) => a + b, 0));
        expect(termNumber(index, 'absent-term')).toBe(-1);
      }),
    );
  });

  it('merge to the index of the kept documents', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(docsArb, fc.array(fc.boolean(), { minLength: 30, maxLength: 30 })), { minLength: 1, maxLength: 3 }), (parts) => {
        const kept: (string[] | undefined)[] = [];
        const inputs = parts.map(([docs, keep]) => {
          const locals = docs.map((_, i) => i).filter((i) => keep[i]);
          for (const i of locals) kept.push(docs[i]);
          return { index: docs.length > 0 ? finish(buildTextIndex((i) => docs[i], docs.length)) : undefined, locals };
        });
        expect(finish(concatTextIndexes(inputs, kept.length))).toEqual(finish(buildTextIndex((i) => kept[i], kept.length)));
      }),
    );
  });
});
