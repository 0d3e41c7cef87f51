/**
 * Elasticsearch's parent circuit breaker with real-memory accounting (its default,
 * `indices.breaker.total.use_real_memory: true`): before work that takes memory, the heap in use plus
 * the bytes the work wants is held against a limit (`indices.breaker.total.limit`, 95% of the heap's
 * limit by default). Over it, the request gets Elasticsearch's 429 `circuit_breaking_exception` and
 * the process keeps running, where going on would end in V8's out-of-memory crash.
 *
 * Request bodies in flight are counted as ES's `in_flight_requests` child breaker counts them: reserved
 * when a request arrives, released when its answer is sent.
 *
 * @example
 * const breaker = new MemoryBreaker(512 * 1024 ** 2);
 * const release = breaker.reserveInFlight(contentLength); // throws a 429 EsError when over the limit
 * try { await handle(); } finally { release(); }
 */
import { getHeapStatistics } from 'node:v8';
import { formatByteSize } from '../byte-size.ts';
import { EsError } from '../errors.ts';

export interface BreakerStats {
  limit_size_in_bytes: number;
  limit_size: string;
  estimated_size_in_bytes: number;
  estimated_size: string;
  overhead: number;
  tripped: number;
}

/** The label ES gives a request body in its breaker messages. */
export const HTTP_REQUEST = '<http_request>';

export class MemoryBreaker {
  #inFlight = 0;
  #tripped = 0;

  constructor(
    /** The parent limit, in bytes. */
    readonly limitBytes: number,
    /** The heap in use now, in bytes (V8's own figure: what its out-of-memory limit is measured against). */
    private readonly used: () => number = () => getHeapStatistics().used_heap_size,
  ) {}

  /** Refuses (a 429) work that wants `bytes` more than the limit leaves room for. */
  check(label: string, bytes: number): void {
    const real = this.used();
    if (real + bytes <= this.limitBytes) return;
    this.#tripped++;
    throw this.#tooLarge(label, real, bytes);
  }

  /** Checks a request body of `bytes` and counts it until the returned function is called. */
  reserveInFlight(bytes: number): () => void {
    this.check(HTTP_REQUEST, bytes);
    this.#inFlight += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight -= bytes;
    };
  }

  /** `_nodes/stats` `breakers`: the parent (real memory) and in-flight requests, in ES's shape. */
  stats(): { parent: BreakerStats; in_flight_requests: BreakerStats } {
    const entry = (limit: number, estimated: number, overhead: number, tripped: number): BreakerStats => ({
      limit_size_in_bytes: limit,
      limit_size: formatByteSize(limit),
      estimated_size_in_bytes: estimated,
      estimated_size: formatByteSize(estimated),
      overhead,
      tripped,
    });
    return {
      parent: entry(this.limitBytes, this.used(), 1, this.#tripped),
      in_flight_requests: entry(this.limitBytes, this.#inFlight, 2, 0),
    };
  }

  #tooLarge(label: string, real: number, bytes: number): EsError {
    const would = real + bytes;
    const sized = (n: number) => `${n}/${formatByteSize(n)}`;
    const usages = `request=0/0b, fielddata=0/0b, in_flight_requests=${sized(this.#inFlight)}, accounting=0/0b`;
    const reason =
      `[parent] Data too large, data for [${label}] would be [${sized(would)}], which is larger than the limit of [${sized(this.limitBytes)}], ` +
      `real usage: [${sized(real)}], new bytes reserved: [${sized(bytes)}], usages [${usages}]`;
    return new EsError(429, 'circuit_breaking_exception', reason, { bytes_wanted: would, bytes_limit: this.limitBytes, durability: 'PERMANENT' });
  }
}

