import fc from 'fast-check';
import murmurhash from 'murmurhash';
import { describe, expect, it } from 'vitest';
import { murmur3Id, routingNumShards, shardFor } from '../../src/engine/routing.ts';

/**
 * murmur3 x86_32 (seed 0) written out over UTF-16 code units: two units make one 4-byte block, a last
 * odd unit is the 2-byte tail. Independent of the library and of murmur3Id's byte packing.
 */
function referenceHash(value: string): number {
  const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));
  const mixBlock = (k: number) => Math.imul(rotl(Math.imul(k, 0xcc9e2d51), 15), 0x1b873593);
  let h = 0;
  let i = 0;
  for (; i + 1 < value.length; i += 2) {
    h ^= mixBlock(value.charCodeAt(i) | (value.charCodeAt(i + 1) << 16));
    h = (Math.imul(rotl(h, 13), 5) + 0xe6546b64) | 0;
  }
  if (i < value.length) h ^= mixBlock(value.charCodeAt(i));
  h ^= value.length * 2;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

function referenceShard(value: string, numberOfShards: number): number {
  const routingShards = routingNumShards(numberOfShards);
  let slot = referenceHash(value) % routingShards;
  if (slot < 0) slot += routingShards;
  return Math.trunc(slot / (routingShards / numberOfShards));
}

/** Strings of whole code points (non-BMP ones become surrogate pairs) or of raw code units (lone surrogates). */
const routingValue = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)), maxLength: 40 }),
);

describe('murmur3Id', () => {
  // ES's Murmur3HashFunctionTests.testKnownValues.
  it.each([
    ['hell', 0x5a0cb7c3],
    ['hello', 0xd7c31989],
    ['hello w', 0x22ab2984],
    ['hello wo', 0xdf0ca123],
    ['hello wor', 0xe7744d61],
    ['The quick brown fox jumps over the lazy dog', 0xe07db09c],
    ['The quick brown fox jumps over the lazy cog', 0x4e63d2ad],
  ])('%s', (value, expected) => {
    expect(murmur3Id(value)).toBe(expected | 0);
  });

  it('hashes UTF-16 code units, not UTF-8', () => {
    fc.assert(fc.property(routingValue, (value) => murmur3Id(value) === referenceHash(value)));
    expect(murmur3Id('😀')).toBe(referenceHash('\ud83d\ude00'));
  });

  it('is murmur3 x86_32 over the code units written as bytes, as the murmurhash package computes it', () => {
    const bytes = (value: string) => Uint8Array.from({ length: value.length * 2 }, (_, i) => (i % 2 === 0 ? value.charCodeAt(i >> 1) & 0xff : value.charCodeAt(i >> 1) >>> 8));
    fc.assert(fc.property(routingValue, (value) => murmur3Id(value) === (murmurhash.v3(bytes(value), 0) | 0)));
  });
});

describe('routingNumShards', () => {
  it.each([
    [1, 1024],
    [2, 1024],
    [3, 768],
    [5, 640],
    [512, 1024],
    [1024, 2048],
  ])('%i shards → %i', (shards, expected) => {
    expect(routingNumShards(shards)).toBe(expected);
  });
});

describe('shardFor', () => {
  const shardCount = fc.integer({ min: 1, max: 1100 });

  it('matches the reference computation and stays in range', () => {
    fc.assert(
      fc.property(routingValue, shardCount, (value, shards) => {
        const shard = shardFor(value, shards);
        return shard === referenceShard(value, shards) && Number.isInteger(shard) && shard >= 0 && shard < shards;
      }),
      { numRuns: 2000 },
    );
  });

  it('sends everything to shard 0 of a one-shard index', () => {
    fc.assert(fc.property(routingValue, (value) => shardFor(value, 1) === 0));
  });

  it('uses the routing-shard slots, not hash % shards', () => {
    // floorMod(h, 640) >> 7 for 5 shards; a negative hash must wrap to a non-negative slot.
    const value = 'The quick brown fox jumps over the lazy dog'; // hash 0xe07db09c is negative
    const hash = murmur3Id(value);
    expect(hash).toBeLessThan(0);
    expect(shardFor(value, 5)).toBe((((hash % 640) + 640) % 640) >> 7);
  });
});
