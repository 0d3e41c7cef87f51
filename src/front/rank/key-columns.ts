/**
 * One sort key's values over a rank index, in rank order, in the kernels' wasm memory, each kept so
 * that it goes back to the cluster exactly as the cluster showed it (a `search_after` value must be
 * the cluster's own):
 * - numbers: f64 (8 bytes a document); `null` (a missing value, as deeppage shows it) as NaN; the
 *   odd value a double cannot hold (a long beyond 2^53 such as the `9223372036854775807`
 *   Elasticsearch shows for a missing long, or a string) kept aside by rank;
 * - anything else (keywords, `date_nanos`' longs, mixed values): a u32 ordinal (4 bytes a
 *   document) into the distinct values' JSON texts.
 * A column starts as numbers and turns into ordinals once values aside pass an eighth of it.
 */
import type { WasmArray, WasmKernels } from '../../core/index.ts';
import { exactText } from '../json-text.ts';

export interface KeyColumn {
  /** The JSON text of the value at a slot. */
  textAt(slot: number): string;
  /** Bytes held: the wasm array and what is kept beside it. */
  readonly bytes: number;
  free(): void;
}

/** Appends values as parsed by `parseExact`, then hands over the column. */
export class KeyColumnBuilder {
  private numbers: Float64Array;
  private aside = new Map<number, string>();
  private ordinals: Uint32Array | undefined;
  private dictionary: string[] = [];
  private dictionaryIndex = new Map<string, number>();
  private length = 0;

  constructor(capacity: number) {
    this.numbers = new Float64Array(Math.max(capacity, 16));
  }

  push(value: unknown): void {
    const slot = this.length++;
    if (this.ordinals) {
      this.ordinals = grown(this.ordinals, slot);
      this.ordinals[slot] = this.ordinal(exactText(value));
      return;
    }
    this.numbers = grown(this.numbers, slot);
    // -0 goes aside: it sorts before 0 in the cluster, and JSON.stringify would say 0.
    if (typeof value === 'number' && !Object.is(value, -0)) this.numbers[slot] = value;
    else if (value === null) this.numbers[slot] = NaN;
    else {
      this.numbers[slot] = NaN;
      this.aside.set(slot, exactText(value));
      if (this.aside.size > 64 && this.aside.size * 8 > this.length) this.toOrdinals();
    }
  }

  /** The column in wasm memory; the builder is spent. */
  build(kernels: WasmKernels): KeyColumn {
    const n = this.length;
    if (this.ordinals) {
      const array = kernels.u32(n);
      array.view.set(this.ordinals.subarray(0, n));
      return new OrdinalColumn(array, this.dictionary);
    }
    const array = kernels.f64(n);
    array.view.set(this.numbers.subarray(0, n));
    return new NumberColumn(array, this.aside);
  }

  private toOrdinals(): void {
    const ordinals = new Uint32Array(this.numbers.length);
    for (let slot = 0; slot < this.length; slot++) {
      const aside = this.aside.get(slot);
      const value = this.numbers[slot];
      ordinals[slot] = this.ordinal(aside ?? (Number.isNaN(value) ? 'null' : JSON.stringify(value)));
    }
    this.ordinals = ordinals;
    this.aside.clear();
    this.numbers = new Float64Array(0);
  }

  private ordinal(text: string): number {
    let ordinal = this.dictionaryIndex.get(text);
    if (ordinal === undefined) {
      ordinal = this.dictionary.length;
      this.dictionary.push(text);
      this.dictionaryIndex.set(text, ordinal);
    }
    return ordinal;
  }
}

class NumberColumn implements KeyColumn {
  constructor(
    private readonly values: WasmArray<Float64Array>,
    private readonly aside: Map<number, string>,
  ) {}

  textAt(slot: number): string {
    const value = this.values.view[slot];
    if (!Number.isNaN(value)) return JSON.stringify(value);
    return this.aside.get(slot) ?? 'null';
  }

  get bytes(): number {
    let aside = 0;
    for (const text of this.aside.values()) aside += 16 + 2 * text.length;
    return this.values.bytes + aside;
  }

  free(): void {
    this.values.free();
  }
}

class OrdinalColumn implements KeyColumn {
  readonly #dictionaryBytes: number;

  constructor(
    private readonly ordinals: WasmArray<Uint32Array>,
    private readonly dictionary: readonly string[],
  ) {
    this.#dictionaryBytes = dictionary.reduce((sum, text) => sum + 16 + 2 * text.length, 0);
  }

  textAt(slot: number): string {
    return this.dictionary[this.ordinals.view[slot]];
  }

  get bytes(): number {
    return this.ordinals.bytes + this.#dictionaryBytes;
  }

  free(): void {
    this.ordinals.free();
  }
}

function grown<T extends Float64Array | Uint32Array>(array: T, slot: number): T {
  if (slot < array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(array.length * 2);
  next.set(array);
  return next;
}
