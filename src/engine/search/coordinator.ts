/**
 * The coordinator: merges every segment's sorted candidates into the requested page. Runs are laid
 * out shard by shard (in the coordinator's shard order), segment by segment, so the merge kernel's
 * tie-break (run, then position) is Elasticsearch's: shard index, then the document's ordinal in its
 * shard.
 */
import { MAX_KEYS, reference, wasmKernels, type Runs, type SortKey } from '../../core/index.ts';
import type { LiveSegment } from '../shard.ts';

/** One segment's candidates: positions in the segment, best first, with the keys they sorted by. */
export interface Candidates {
  target: number;
  shard: number;
  live: LiveSegment;
  keys: SortKey[];
  locals: Uint32Array;
}

/** A document on the page. */
export interface PageEntry {
  target: number;
  shard: number;
  live: LiveSegment;
  local: number;
}

export function mergePage(runs: readonly Candidates[], from: number, size: number): PageEntry[] {
  if (runs.length === 0 || size === 0) return [];
  const starts = new Uint32Array(runs.length + 1);
  runs.forEach((run, r) => (starts[r + 1] = starts[r] + run.locals.length));
  const total = starts[runs.length];
  const keys = runs[0].keys.map((key, j) => ({ values: gather(runs, j, starts, total), order: key.order, missing: key.missing }));
  const runsOfKeys: Runs = { keys, starts };
  const page = keys.length <= MAX_KEYS ? wasmKernels().mergeRuns(runsOfKeys, from, size) : reference.mergeRuns(runsOfKeys, from, size);
  return Array.from(page.run, (r, i) => {
    const run = runs[r];
    return { target: run.target, shard: run.shard, live: run.live, local: run.locals[page.pos[i]] };
  });
}

/** Key j of every run's candidates, in candidate order, as one column (the merge kernel's input). */
function gather(runs: readonly Candidates[], j: number, starts: Uint32Array, total: number): Float64Array {
  const values = new Float64Array(total);
  for (let r = 0; r < runs.length; r++) {
    const column = runs[r].keys[j].values;
    const locals = runs[r].locals;
    const at = starts[r];
    for (let i = 0; i < locals.length; i++) values[at + i] = column[locals[i]];
  }
  return values;
}

/**
 * The page when nothing reorders hits: shard order, then ordinal order. Skips whole segments by
 * their live counts, so the cost is the page, not `from`.
 */
export function unsortedPage(segments: readonly Omit<PageEntry, 'local'>[], from: number, size: number): PageEntry[] {
  const page: PageEntry[] = [];
  let skip = from;
  for (const seg of segments) {
    if (page.length === size) break;
    const { live } = seg;
    const liveCount = live.segment.count - live.deletedCount;
    if (skip >= liveCount) {
      skip -= liveCount;
      continue;
    }
    for (let i = 0; i < live.segment.count && page.length < size; i++) {
      if (live.deleted?.[i]) continue;
      if (skip > 0) skip--;
      else page.push({ ...seg, local: i });
    }
  }
  return page;
}
