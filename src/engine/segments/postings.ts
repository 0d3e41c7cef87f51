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
import { SLICE, type Steps } from '../steps.ts';
import { lowerBound, sortedSteps } from '../terms.ts';

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
export function* buildTextIndex(valuesOf: (doc: number) => readonly (string | number)[] | undefined, count: number): Steps<TextIndex> {
  const lengths = new Int32Array(count).fill(-1);
  const numbers = new Map<string, number>(); // term → first-seen number
  const occurrences = new Occurrences();
  let sinceYield = 0;
  for (let doc = 0; doc < count; doc++) {
    const values = valuesOf(doc);
    if (values === undefined) continue;
    let position = 0, length = 0;
    for (let v = 0; v < values.length; v++) {
      if (v > 0) position += POSITION_INCREMENT_GAP;
      for (const term of analyze(String(values[v]))) {
        let n = numbers.get(term);
        if (n === undefined) numbers.set(term, (n = numbers.size));
        occurrences.push(n, doc, position++);
        length++;
      }
    }
    lengths[doc] = length;
    // Analysis costs by the token (a few microseconds each): a slice is a thousand of them.
    if ((sinceYield += 1 + length) >= TOKEN_SLICE) {
      sinceYield = 0;
      yield;
    }
  }
  return yield* pack(numbers, occurrences, lengths);
}

/**
 * The indexes' documents at `locals` (per part, ascending, as a merge keeps a segment's live
 * documents) as one index. Each part's postings are walked once, documents renumbered, deleted
 * ones dropped.
 */
export function* concatTextIndexes(parts: readonly { index: TextIndex | undefined; locals: ArrayLike<number> }[], count: number): Steps<TextIndex> {
  const lengths = new Int32Array(count).fill(-1);
  const numbers = new Map<string, number>();
  const occurrences = new Occurrences();
  let base = 0, sinceYield = 0;
  for (const { index, locals } of parts) {
    if (index) {
      // Old local → new ordinal, -1 for dropped documents.
      const renumber = new Int32Array(index.lengths.length).fill(-1);
      for (let i = 0; i < locals.length; i++) {
        renumber[locals[i]] = base + i;
        lengths[base + i] = index.lengths[locals[i]];
      }
      for (let t = 0; t < index.terms.length; t++) {
        let n = -1;
        for (let p = index.starts[t]; p < index.starts[t + 1]; p++) {
          const doc = renumber[index.docs[p]];
          if (doc < 0) continue;
          if (n < 0) {
            const term = index.terms[t];
            n = numbers.get(term) ?? numbers.size;
            if (n === numbers.size) numbers.set(term, n);
          }
          const from = index.positionStarts[p];
          for (let k = 0; k < index.freqs[p]; k++) occurrences.push(n, doc, index.positions[from + k]);
        }
        if ((sinceYield += 1 + index.starts[t + 1] - index.starts[t]) >= SLICE) {
          sinceYield = 0;
          yield;
        }
      }
    }
    base += locals.length;
  }
  return yield* pack(numbers, occurrences, lengths);
}

/** Every (term, document, position) of a field, in flat growable arrays: no object per posting. */
class Occurrences {
  terms = new Uint32Array(1024);
  docs = new Uint32Array(1024);
  positions = new Uint32Array(1024);
  length = 0;

  push(term: number, doc: number, position: number): void {
    if (this.length === this.terms.length) {
      const grow = (a: Uint32Array) => {
        const b = new Uint32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.terms = grow(this.terms);
      this.docs = grow(this.docs);
      this.positions = grow(this.positions);
    }
    this.terms[this.length] = term;
    this.docs[this.length] = doc;
    this.positions[this.length++] = position;
  }
}

/**
 * The occurrences grouped by term (in sorted order) by a counting sort, then by document and
 * position: within a term, documents and positions keep the order they came in, which is ascending
 * (documents in order, and a merge's parts in order with increasing bases).
 */
function* pack(numbers: Map<string, number>, occurrences: Occurrences, lengths: Int32Array): Steps<TextIndex> {
  const terms = yield* sortedSteps([...numbers.keys()]);
  const rank = new Uint32Array(numbers.size); // first-seen number → place in sorted order
  for (let t = 0; t < terms.length; t++) {
    rank[numbers.get(terms[t])!] = t;
    if (t % SLICE === SLICE - 1) yield;
  }
  const n = occurrences.length;
  // Occurrences per term, then each term's first slot.
  const slots = new Uint32Array(terms.length + 1);
  for (let i = 0; i < n; i++) slots[rank[occurrences.terms[i]] + 1]++;
  for (let t = 0; t < terms.length; t++) slots[t + 1] += slots[t];
  yield;
  const positions = new Uint32Array(n);
  const docOf = new Uint32Array(n);
  const next = slots.slice(0, terms.length);
  for (let i = 0; i < n; i++) {
    const at = next[rank[occurrences.terms[i]]]++;
    positions[at] = occurrences.positions[i];
    docOf[at] = occurrences.docs[i];
    if (i % BIG_SLICE === BIG_SLICE - 1) yield;
  }
  // Postings: runs of one document within a term.
  let postingCount = 0;
  for (let t = 0; t < terms.length; t++) for (let i = slots[t]; i < slots[t + 1]; i++) if (i === slots[t] || docOf[i] !== docOf[i - 1]) postingCount++;
  yield;
  const starts = new Uint32Array(terms.length + 1);
  const docs = new Uint32Array(postingCount);
  const freqs = new Uint32Array(postingCount);
  const positionStarts = new Uint32Array(postingCount + 1);
  let p = 0;
  for (let t = 0; t < terms.length; t++) {
    for (let i = slots[t]; i < slots[t + 1]; i++) {
      if (i === slots[t] || docOf[i] !== docOf[i - 1]) {
        docs[p] = docOf[i];
        positionStarts[p] = i;
        p++;
      }
      freqs[p - 1]++;
    }
    starts[t + 1] = p;
    if (t % SLICE === SLICE - 1) yield;
  }
  positionStarts[p] = n;
  let docCount = 0, sumTotalTermFreq = 0;
  for (const length of lengths) {
    if (length <= 0) continue;
    docCount++;
    sumTotalTermFreq += length;
  }
  return { kind: 'text', terms, starts, docs, freqs, positionStarts, positions, lengths, docCount, sumTotalTermFreq };
}

/** Tokens analysed per yield. */
const TOKEN_SLICE = SLICE / 4;

/** Occurrences per yield in loops that do a few array operations per occurrence. */
const BIG_SLICE = 16 * SLICE;

/** The term's number in the index, or -1. */
export function termNumber(index: TextIndex, term: string): number {
  const t = lowerBound(index.terms, term);
  return t < index.terms.length && index.terms[t] === term ? t : -1;
}
