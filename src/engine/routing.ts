/**
 * Which shard holds a document: Elasticsearch's default routing for unpartitioned indices created
 * on 7.0 or later, so a document lands on the same shard number here as it would in ES.
 *
 * @example
 * shardFor('user-42', 5); // floorMod(murmur3Id('user-42'), 640) / 128, not hash % 5
 */
import murmurhash from 'murmurhash';

/**
 * ES's `Murmur3HashFunction.hash(String)`: murmur3 x86_32 (seed 0) over the string's UTF-16 code
 * units, each written as 2 bytes little-endian. Not UTF-8: a non-BMP character is two surrogate units.
 * Returns a signed int32, as Java does.
 */
export function murmur3Id(value: string): number {
  const bytes = new Uint8Array(value.length * 2);
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    bytes[2 * i] = unit & 0xff;
    bytes[2 * i + 1] = unit >>> 8;
  }
  return murmurhash.v3(bytes, 0) | 0;
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
