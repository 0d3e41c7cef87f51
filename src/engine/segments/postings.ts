/**
 * A text field's inverted index within one segment: its sorted terms and, per term, the documents
 * holding it (ascending local ordinals), how often, and at which positions. Plus per document the
 * field's length in tokens, which BM25 reads through Lucene's one-byte norm (scoring/bm25.ts).
 *
 * Everything is typed arrays indexed by term number and posting number, so a segment of a million
 * documents holds a few arrays, not a million objects, and the arrays go to disk as they are
 * (format.ts).
 */
import { analyze } from '../analysis/standard-analyzer.ts';
import { lowerBound, sortedDistinct } from '../terms.ts';

/** Elasticsearch's `position_increment_gap` for text fields: positions skipped between array values. */
export const POSITION_INCREMENT_GAP = 100;

export interface TextIndex {
  kind: 'text';
  /** Sorted in code point order (terms.ts). */
  terms: string[];
  /** Term t's postings are `[starts[t], starts[t + 1])`. */
  starts: Uint32Array;
  /** Per posting: the document (ascending within a term). */
  docs: Uint32Array;
  /** Per posting: the term's frequency in that document. */
  freqs: Uint32Array;
  /** Posting p's positions are `positions[positionStarts[p] … positionStarts[p] + freqs[p])`, ascending. */
  positionStarts: Uint32Array;
  positions: Uint32Array;
  /** Per document: its token count in this field, -1 when it has no value for the field at all. */
  lengths: Int32Array;
  /** Documents with at least one token (Lucene's `docCount` for the field). */
  docCount: number;
  /** Tokens over all documents (Lucene's `sumTotalTermFreq`). */
  sumTotalTermFreq: number;
}

/** The field's values of each document, as given (strings; numbers and booleans as their text). */
export function buildTextIndex(valuesOf: (doc: number) => readonly (string | number)[] | undefined, count: number): TextIndex {
  const lengths = new Int32Array(count).fill(-1);
  // Per term (first-seen number): its documents and, per document, its positions.
  const numbers = new Map<string, number>();
  const postings: { docs: number[]; positions: number[][] }[] = [];
  for (let doc = 0; doc < count; doc++) {
    const values = valuesOf(doc);
    if (values === undefined) continue;
    let position = 0, length = 0;
    values.forEach((value, v) => {
      if (v > 0) position += POSITION_INCREMENT_GAP;
      for (const term of analyze(String(value))) {
        let n = numbers.get(term);
        if (n === undefined) {
          numbers.set(term, (n = postings.length));
          postings.push({ docs: [], positions: [] });
        }
        const list = postings[n];
        if (list.docs[list.docs.length - 1] !== doc) {
          list.docs.push(doc);
          list.positions.push([]);
        }
        list.positions[list.positions.length - 1].push(position++);
        length++;
      }
    });
    lengths[doc] = length;
  }
  const terms = sortedDistinct(numbers.keys());
  return pack(terms, (t) => postings[numbers.get(terms[t])!], lengths);
}

/**
 * The indexes' documents at `locals` (per part, in order) as one index: how a merge keeps a text
 * field. Each part's postings are walked once, documents renumbered, deleted ones dropped.
 */
export function concatTextIndexes(parts: readonly { index: TextIndex | undefined; locals: ArrayLike<number> }[], count: number): TextIndex {
  const lengths = new Int32Array(count).fill(-1);
  const byTerm = new Map<string, { docs: number[]; positions: number[][] }>();
  let base = 0;
  for (const { index, locals } of parts) {
    if (index) {
      // Old local → new ordinal, -1 for dropped documents.
      const renumber = new Int32Array(index.lengths.length).fill(-1);
      for (let i = 0; i < locals.length; i++) {
        renumber[locals[i]] = base + i;
        lengths[base + i] = index.lengths[locals[i]];
      }
      index.terms.forEach((term, t) => {
        for (let p = index.starts[t]; p < index.starts[t + 1]; p++) {
          const doc = renumber[index.docs[p]];
          if (doc < 0) continue;
          let list = byTerm.get(term);
          if (!list) byTerm.set(term, (list = { docs: [], positions: [] }));
          list.docs.push(doc);
          const from = index.positionStarts[p];
          list.positions.push(Array.from(index.positions.subarray(from, from + index.freqs[p])));
        }
      });
    }
    base += locals.length;
  }
  const terms = sortedDistinct(byTerm.keys());
  return pack(terms, (t) => byTerm.get(terms[t])!, lengths);
}

function pack(terms: string[], postingsOf: (t: number) => { docs: number[]; positions: number[][] }, lengths: Int32Array): TextIndex {
  let postingCount = 0, positionCount = 0;
  for (let t = 0; t < terms.length; t++) {
    const list = postingsOf(t);
    postingCount += list.docs.length;
    for (const p of list.positions) positionCount += p.length;
  }
  const starts = new Uint32Array(terms.length + 1);
  const docs = new Uint32Array(postingCount);
  const freqs = new Uint32Array(postingCount);
  const positionStarts = new Uint32Array(postingCount + 1);
  const positions = new Uint32Array(positionCount);
  let p = 0, at = 0;
  for (let t = 0; t < terms.length; t++) {
    const list = postingsOf(t);
    // Documents may come out of order from a merge of parts; positions stay with their document.
    const order = list.docs.map((_, i) => i);
    if (!isAscending(list.docs)) order.sort((a, b) => list.docs[a] - list.docs[b]);
    for (const i of order) {
      docs[p] = list.docs[i];
      freqs[p] = list.positions[i].length;
      positionStarts[p] = at;
      positions.set(list.positions[i], at);
      at += list.positions[i].length;
      p++;
    }
    starts[t + 1] = p;
  }
  positionStarts[p] = at;
  let docCount = 0, sumTotalTermFreq = 0;
  for (const length of lengths) {
    if (length <= 0) continue;
    docCount++;
    sumTotalTermFreq += length;
  }
  return { kind: 'text', terms, starts, docs, freqs, positionStarts, positions, lengths, docCount, sumTotalTermFreq };
}

function isAscending(values: readonly number[]): boolean {
  for (let i = 1; i < values.length; i++) if (values[i] < values[i - 1]) return false;
  return true;
}

/** The term's number in the index, or -1. */
export function termNumber(index: TextIndex, term: string): number {
  const t = lowerBound(index.terms, term);
  return t < index.terms.length && index.terms[t] === term ? t : -1;
}
