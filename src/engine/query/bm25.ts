/**
 * BM25 as Elasticsearch 8 scores by default: Lucene 9's BM25Similarity (k1 = 1.2, b = 0.75) under
 * Elasticsearch's LegacyBM25Similarity, which multiplies the query boost by (1 + k1), every step in
 * float32 in Lucene's order (../shared/reference/queries-and-scoring.md §1). Document lengths go
 * through Lucene's one-byte norm, so lengths above 40 are rounded down to 4 significant bits.
 */

import type { TextIndex } from '../segments/postings.ts';

const f = Math.fround;
const K1 = f(1.2);
const B = f(0.75);

/** The statistics one term's scorer needs, over one shard (deleted documents included, as in Lucene). */
export interface TermStatistics {
  /** Documents of the shard holding the term in the field. */
  docFreq: number;
  /** Documents of the shard with at least one token in the field. */
  docCount: number;
  /** Tokens of the field over the shard. */
  sumTotalTermFreq: number;
}

/** Scores one term's matches: `score(freq, norm)`, with `norm` the document's length byte. */
export interface TermScorer {
  readonly weight: number;
  /** Per norm byte: 1 / (k1 × (1 − b + b × length / avgdl)), float32 (what the scoreTerms kernel reads). */
  readonly inverse: Float32Array;
  score(freq: number, norm: number): number;
}

/**
 * @param boost the product of the enclosing queries' boosts (float32), 1 when none.
 */
export function termScorer(boost: number, { docFreq, docCount, sumTotalTermFreq }: TermStatistics): TermScorer {
  return scorerOf(boost, f(Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5))), f(sumTotalTermFreq / docCount));
}

function scorerOf(boost: number, idf: number, avgdl: number): TermScorer {
  const weight = f(f(boost * f(1 + K1)) * idf);
  const inverse = new Float32Array(256);
  for (let i = 0; i < 256; i++) inverse[i] = f(1 / f(K1 * f(f(1 - B) + f(f(B * LENGTHS[i]) / avgdl))));
  return {
    weight,
    inverse,
    score: (freq, norm) => f(weight - f(weight / f(1 + f(freq * inverse[norm])))),
  };
}

/** Each document's norm byte in a text index (0 for documents without the field), computed once per index. */
export function normsOf(index: TextIndex): Uint8Array {
  let norms = NORMS.get(index);
  if (!norms) {
    const { lengths } = index;
    norms = new Uint8Array(lengths.length);
    for (let doc = 0; doc < lengths.length; doc++) if (lengths[doc] > 0) norms[doc] = lengthToNorm(lengths[doc]);
    NORMS.set(index, norms);
  }
  return norms;
}

/** The norms of each text index read so far (an index never changes once built). */
const NORMS = new WeakMap<TextIndex, Uint8Array>();

/** Lucene's SmallFloat.intToByte4: a length as its norm byte (exact to 40, then 4 significant bits, rounded down). */
export function lengthToNorm(length: number): number {
  return length < FREE_VALUES ? length : FREE_VALUES + longToInt4(length - FREE_VALUES);
}

/** Lucene's SmallFloat.byte4ToInt: the length a norm byte stands for. */
export function normToLength(norm: number): number {
  return norm < FREE_VALUES ? norm : FREE_VALUES + int4ToLong(norm - FREE_VALUES);
}

/** 255 − longToInt4(2^31 − 1): the byte values that encode lengths exactly. */
const FREE_VALUES = 24;

function longToInt4(value: number): number {
  const bits = 32 - Math.clz32(value);
  if (bits < 4) return value;
  const shift = bits - 4;
  return ((value >>> shift) & 7) | ((shift + 1) << 3);
}

function int4ToLong(code: number): number {
  const bits = code & 7;
  const shift = (code >>> 3) - 1;
  return shift === -1 ? bits : (bits | 8) * 2 ** shift;
}

/** The length each norm byte stands for, as Lucene's scorer reads it (a float table). */
const LENGTHS = Float32Array.from({ length: 256 }, (_, i) => normToLength(i));

/**
 * A phrase's scorer: one BM25 score whose idf is the sum of its terms' idfs (summed in double, then
 * float32, as Lucene's multi-term idf explanation does), and whose frequency is the phrase's count.
 */
export function phraseScorer(boost: number, terms: readonly TermStatistics[]): TermScorer {
  let idfSum = 0;
  for (const { docFreq, docCount } of terms) idfSum += f(Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)));
  const { docCount, sumTotalTermFreq } = terms[0];
  return scorerOf(boost, f(idfSum), f(sumTotalTermFreq / docCount));
}
