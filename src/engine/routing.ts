/**
 * Which shard holds a document: Elasticsearch's default routing for unpartitioned indices created
 * on 7.0 or later, so a document lands on the same shard number here as it would in ES.
 *
 * @example
 * shardFor('user-42', 5); // floorMod(murmur3Id('user-42'), 640) / 128, not hash % 5
 */
/**
 * ES's `Murmur3HashFunction.hash(String)`: murmur3 x86_32 (seed 0) over the string's UTF-16 code
 * units, each written as 2 bytes little-endian. Not UTF-8: a non-BMP character is two surrogate units.
 * Returns a signed int32, as Java does.
 *
 * Computed over the code units as they are (two make a 4-byte block; an odd one out is the 2-byte
 * tail), rather than over a byte array made for each id: every write and every GET by id routes.
 * The test compares it with the `murmurhash` package over the bytes.
 */
export function murmur3Id(value: string): number {
  const units = value.length;
  let h = 0;
  let i = 0;
  for (; i + 1 < units; i += 2) {
    h ^= mixBlock(value.charCodeAt(i) | (value.charCodeAt(i + 1) << 16));
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  if (i < units) h ^= mixBlock(value.charCodeAt(i));
  h ^= units * 2;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** murmur3's mix of one 4-byte block (or of the tail), before it goes into the hash. */
function mixBlock(k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, 0x1b873593);
}

/**
 * The default `index.number_of_routing_shards`: the shard count multiplied up by powers of two to
 * about 1024, which is what lets ES split an index later. At least one split even past 512 shards.
 */
export function routingNumShards(numberOfShards: number): number {
  const log2 = 32 - Math.clz32(numberOfShards - 1); // ceil(log2(n)), 0 for n = 1
  const numSplits = Math.max(1, 10 - log2);
  return numberOfShards * (1 << numSplits);
}

/**
 * The shard (0 ≤ shard < numberOfShards) for a routing value: the `_routing` if given, else the `_id`.
 * @param routingShards the index's `index.number_of_routing_shards`, if set (a multiple of the shard count).
 */
export function shardFor(routing: string, numberOfShards: number, routingShards = routingNumShards(numberOfShards)): number {
  const routingFactor = routingShards / numberOfShards; // exact: routingShards is a multiple
  return Math.floor(floorMod(murmur3Id(routing), routingShards) / routingFactor);
}

/** Java's `Math.floorMod`: the remainder with the divisor's sign, so never negative here. */
function floorMod(dividend: number, divisor: number): number {
  return ((dividend % divisor) + divisor) % divisor;
}
