/**
 * Checks kernels against the conformance vectors (vectors.json, made by vectors.ts) exactly: every
 * entry of every top-k, every run and position of every merged page, every count of every rank
 * selection. Plain JavaScript with no imports, so every runtime loads it as it is.
 *
 * Top-k gets its columns as plain typed arrays (the binding copies them in); runs are placed in the
 * module's memory first and read in place, as the engine keeps them. Afterwards the module must hold
 * no more blocks than before.
 */

/** A JSON column as f64, NaN bit patterns written as given ("NaN:<hex>"; see vectors.ts). */
export function decodeValues(list) {
  const out = new Float64Array(list.length);
  const bits = new BigUint64Array(out.buffer);
  list.forEach((v, i) => {
    if (typeof v === 'string' && v.startsWith('NaN:')) bits[i] = BigInt(`0x${v.slice(4)}`);
    else out[i] = decodeValue(v);
  });
  return out;
}

export function decodeValue(v) {
  if (typeof v === 'number') return v;
  if (v === 'NaN' || v.startsWith('NaN:')) return NaN;
  if (v === '-0') return -0;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  throw new Error(`vectors: unknown value ${JSON.stringify(v)}`);
}

function decodeOrder({ order, missing }) {
  return { order, missing: missing === '_last' || missing === '_first' || missing === undefined ? missing : decodeValue(missing) };
}

/** Where two lists first differ, or undefined when they are equal. */
function difference(got, want) {
  const n = Math.max(got.length, want.length);
  for (let i = 0; i < n; i++) if (got[i] !== want[i]) return `at ${i}: got ${got[i]}, want ${want[i]} (lengths ${got.length}, ${want.length})`;
  return undefined;
}

/**
 * Runs every vector through `kernels` (a WasmKernels of the package under test).
 * @returns {{ checked: number, failures: string[] }} failures name the vector and the first difference
 */
export function checkVectors(kernels, vectors) {
  const failures = [];
  let checked = 0;
  /** One vector: `answer` gives [part, got, want] lists, all of which must be equal. */
  const verify = (name, answer) => {
    checked++;
    try {
      for (const [part, got, want] of answer()) {
        const diff = difference(Array.from(got), want);
        if (diff) return void failures.push(`${name}${part}: ${diff}`);
      }
    } catch (error) {
      failures.push(`${name}: threw ${error}`);
    }
  };
  const before = kernels.inUse();

  for (const v of vectors.topK) {
    const keys = v.keys.map((key) => ({ ...decodeOrder(key), values: decodeValues(key.values) }));
    verify(`topK ${v.name}`, () => [['', kernels.topK(keys, v.n, v.k), v.want]]);
  }

  for (const set of vectors.runs) {
    const arrays = [];
    const place = (list) => {
      const values = decodeValues(list);
      const array = kernels.f64(values.length);
      array.view.set(values);
      arrays.push(array);
      return array;
    };
    try {
      const runs = {
        order: set.order.map(decodeOrder),
        runs: set.runs.map((run) => ({
          length: run.keys[0].values.length,
          keys: run.keys.map((key) => ({
            values: place(key.values),
            ...(key.map ? { map: place(key.map) } : {}),
            ...(key.offset !== undefined ? { offset: decodeValue(key.offset) } : {}),
          })),
        })),
      };
      for (const page of set.pages) {
        verify(`mergeRuns ${set.name} from ${page.from} size ${page.size}`, () => {
          const got = kernels.mergeRuns(runs, page.from, page.size);
          return [[' runs', got.run, page.run], [' positions', got.pos, page.pos]];
        });
      }
      for (const rank of set.ranks) verify(`rankSelect ${set.name} rank ${rank.rank}`, () => [['', kernels.rankSelect(runs, rank.rank), rank.want]]);
    } finally {
      for (const array of arrays) array.free();
    }
  }

  const after = kernels.inUse();
  if (after.blocks !== before.blocks || after.bytes !== before.bytes) failures.push(`the module holds ${after.blocks} blocks (${after.bytes} bytes) after the vectors, ${before.blocks} (${before.bytes}) before`);
  return { checked, failures };
}

/** How many vectors the file holds: one per top-k, merged page and rank selection. */
export function countVectors(vectors) {
  return vectors.topK.length + vectors.runs.reduce((n, set) => n + set.pages.length + set.ranks.length, 0);
}

/**
 * Checks the vectors on kernels from each loader in turn (a loader returns kernels or a promise of
 * them): what each runtime's host reports, as one JSON line or the page's result.
 * @returns {Promise<{ runtime: string, loaders: { loader: string, checked: number, failures: string[] }[] }>}
 */
export async function checkLoaders(runtime, vectors, loaders) {
  const results = [];
  for (const [loader, load] of Object.entries(loaders)) {
    try {
      results.push({ loader, ...checkVectors(await load(), vectors) });
    } catch (error) {
      results.push({ loader, checked: 0, failures: [`loading failed: ${error?.stack ?? error}`] });
    }
  }
  return { runtime, loaders: results };
}
