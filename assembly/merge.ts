// Coordinator k-way merge: the entries at merged positions [from, from+size) of R sorted runs.
//
// Rank selection (rank.ts) finds where position `from` falls in every run, so skipped entries are
// never merged; the page then comes out of a loser tree (Knuth 5.4.1) whose R leaves are the runs'
// current heads. Each internal node keeps the image and tie of the loser of its match, so a replay
// is one compare and a few selects per level, with no data-dependent branch for a single key.
// A node's tie is the run index, or run + L once the run is spent, so spent runs lose every match.
// Equal keys order by run index, then position in the run (Lucene's TopDocs.merge).

import { alloc, free } from "./heap";
import { setU32, u32At } from "./mem";
import { keyCount, loadRuns, loadSpec, runImage, runLength, runValue, imageOf, dirMask, missingImage } from "./keys";
import { splits } from "./rank";

let cursor: usize = 0; // per leaf: the position of its run's head
let leaves: u32 = 0; // L: runs rounded up to a power of two
let runs_: u32 = 0;

// A tree is one block: per leaf its cursor (u32), per node its loser's tie (u32) and image (i64).
@inline function treeTies(t: usize): usize {
  return t + ((<usize>leaves) << 2);
}
@inline function treeImages(t: usize): usize {
  return t + ((<usize>leaves) << 3);
}

/**
 * Writes the run (u32) and position within the run (u32) of merged entries [from, from+size) of the
 * `runs` runs in `table` to `outRun` and `outPos`; returns how many were written: min(size,
 * total - from), 0 past the end.
 */
export function mergeRuns(
  spec: usize, keys: i32, table: usize, runs: u32,
  from: u32, size: u32, outRun: usize, outPos: usize,
): u32 {
  loadSpec(spec, keys);
  loadRuns(table);
  let total: u64 = 0;
  for (let r: u32 = 0; r < runs; r++) total += runLength(r);
  if (runs == 0 || <u64>from >= total || size == 0) return 0;
  const count = <u32>min(<u64>size, total - from);
  runs_ = runs;
  leaves = 1;
  while (leaves < runs) leaves <<= 1;
  let w = plant(from);
  if (keyCount() > 1) mergeMulti(w, count, outRun, outPos);
  else mergeSingle(w, count, outRun, outPos);
  free(cursor);
  return count;
}

/** Allocates the tree (at `cursor`) with the runs' heads at merged rank `rank`, plays it, and returns the winner's tie. */
function plant(rank: u32): u32 {
  cursor = alloc((<usize>leaves) << 4);
  splits(runs_, rank, cursor);
  return build(treeImages(cursor), treeTies(cursor));
}

function mergeMulti(w: u32, count: u32, outRun: usize, outPos: usize): void {
  const t = cursor;
  for (let i: u32 = 0; i < count; i++) {
    const run = w & (leaves - 1);
    const p = u32At(cursor, run);
    setU32(outRun, i, run);
    setU32(outPos, i, p);
    setU32(cursor, run, p + 1);
    w = replayMulti(treeImages(t), treeTies(t), run);
  }
}

function mergeSingle(w: u32, count: u32, outRun: usize, outPos: usize): void {
  const dir = dirMask(0), miss = missingImage(0);
  for (let i: u32 = 0; i < count; i++) w = step(cursor, w, i, outRun, outPos, dir, miss);
}

/**
 * Emits tree t's winner `w` as output i, advances its run and replays the run's path with selects
 * (no data-dependent branch); returns the new winner.
 */
@inline function step(t: usize, w: u32, i: u32, outRun: usize, outPos: usize, dir: i64, miss: i64): u32 {
  const run = w & (leaves - 1);
  const nodeImg = treeImages(t), nodeTie = treeTies(t);
  const p = u32At(t, run);
  store<u32>(outRun + ((<usize>i) << 2), run);
  store<u32>(outPos + ((<usize>i) << 2), p);
  const next = p + 1;
  store<u32>(t + ((<usize>run) << 2), next);
  const live = next < runLength(run);
  // A spent run's head reads its last entry instead; the select discards the value.
  const v = imageOf(runValue(run, 0, select<u32>(next, p, live)), dir, miss);
  let wi = select<i64>(v, i64.MAX_VALUE, live);
  let wt = select<u32>(run, run + leaves, live);
  let node = (run + leaves) >> 1;
  while (node > 0) {
    const ai = nodeImg + ((<usize>node) << 3), at = nodeTie + ((<usize>node) << 2);
    const ni = load<i64>(ai), nt = load<u32>(at);
    const nodeWins = (ni < wi) | ((ni == wi) & (nt < wt));
    store<i64>(ai, select<i64>(wi, ni, nodeWins));
    store<u32>(at, select<u32>(wt, nt, nodeWins));
    wi = select<i64>(ni, wi, nodeWins);
    wt = select<u32>(nt, wt, nodeWins);
    node >>= 1;
  }
  return wt;
}

@inline function liveLeaf(s: u32): bool {
  return s < runs_ && u32At(cursor, s) < runLength(s);
}

/** The head of leaf s as (image, tie); spent runs and padding leaves lose to everything. */
@inline function head(s: u32): i64 {
  return liveLeaf(s) ? runImage(s, 0, u32At(cursor, s)) : i64.MAX_VALUE;
}
@inline function tieOf(s: u32): u32 {
  return liveLeaf(s) ? s : s + leaves;
}

/** Plays the initial tournament bottom-up, filling the nodes with losers; returns the winner's tie. */
function build(nodeImg: usize, nodeTie: usize): u32 {
  // Winners of each subtree, indexed like the internal nodes (1..L-1), with the leaves at L..2L-1.
  const wImg = alloc((<usize>leaves) << 4), wTie = alloc((<usize>leaves) << 3);
  for (let s: u32 = 0; s < leaves; s++) {
    store<i64>(wImg + ((<usize>(leaves + s)) << 3), head(s));
    setU32(wTie, leaves + s, tieOf(s));
  }
  for (let node = leaves - 1; node >= 1; node--) {
    const li = load<i64>(wImg + ((<usize>(node * 2)) << 3)), lt = u32At(wTie, node * 2);
    const ri = load<i64>(wImg + ((<usize>(node * 2 + 1)) << 3)), rt = u32At(wTie, node * 2 + 1);
    const leftWins = before(li, lt, ri, rt);
    store<i64>(wImg + ((<usize>node) << 3), leftWins ? li : ri);
    setU32(wTie, node, leftWins ? lt : rt);
    store<i64>(nodeImg + ((<usize>node) << 3), leftWins ? ri : li);
    setU32(nodeTie, node, leftWins ? rt : lt);
  }
  const w = leaves > 1 ? u32At(wTie, 1) : u32At(wTie, leaves);
  free(wImg);
  free(wTie);
  return w;
}

/** Whether (image a, tie a) sorts before (image b, tie b), comparing later keys on equal images. */
function before(ia: i64, ta: u32, ib: i64, tb: u32): bool {
  if (ia != ib) return ia < ib;
  if (keyCount() > 1 && ta < leaves && tb < leaves) {
    const pa = u32At(cursor, ta), pb = u32At(cursor, tb);
    for (let j = 1; j < keyCount(); j++) {
      const a = runImage(ta, j, pa), b = runImage(tb, j, pb);
      if (a != b) return a < b;
    }
  }
  return ta < tb;
}

/** Replay for several keys: equal primary images go to the full comparison. */
function replayMulti(nodeImg: usize, nodeTie: usize, run: u32): u32 {
  let wi = head(run), wt = tieOf(run);
  let node = (run + leaves) >> 1;
  while (node > 0) {
    const ai = nodeImg + ((<usize>node) << 3), at = nodeTie + ((<usize>node) << 2);
    const ni = load<i64>(ai), nt = load<u32>(at);
    if (before(ni, nt, wi, wt)) {
      store<i64>(ai, wi);
      store<u32>(at, wt);
      wi = ni;
      wt = nt;
    }
    node >>= 1;
  }
  return wt;
}
