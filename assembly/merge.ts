// Coordinator k-way merge: the entries at merged positions [from, from+size) of S sorted runs.
//
// Rank selection (rank.ts) finds where position `from` falls in every run, so skipped entries are
// never merged; the page then comes out of a loser tree (Knuth 5.4.1) whose S leaves are the runs'
// current heads. Each internal node keeps the image and tie of the loser of its match, so a replay
// is one compare and a few selects per level, with no data-dependent branch for a single key.
// A node's tie is the run index, or run + L once the run is spent, so spent runs lose every match.
// Equal keys order by run index, then position in the run (Lucene's TopDocs.merge).

import { alloc, mark, release } from "./arena";
import { imageAt, keyCount, loadSpec } from "./keys";
import { splits } from "./rank";

@inline function u32At(base: usize, i: u32): u32 {
  return load<u32>(base + ((<usize>i) << 2));
}
@inline function setU32(base: usize, i: u32, v: u32): void {
  store<u32>(base + ((<usize>i) << 2), v);
}

let starts: usize = 0;
let cursor: usize = 0; // per run: global entry index of its head
let leaves: u32 = 0; // L: runs rounded up to a power of two
let runs_: u32 = 0;

/**
 * Writes the run (u32) and position within the run (u32) of merged entries [from, from+size) to
 * `outRun` and `outPos`; returns how many were written: min(size, total - from), 0 past the end.
 */
export function mergeRuns(
  spec: usize, keys: i32, runStarts: usize, runs: u32,
  from: u32, size: u32, outRun: usize, outPos: usize,
): u32 {
  loadSpec(spec, keys);
  const total = u32At(runStarts, runs) - u32At(runStarts, 0);
  if (runs == 0 || from >= total || size == 0) return 0;
  const count = min(size, total - from);
  const m = mark();
  starts = runStarts;
  leaves = 1;
  while (leaves < runs) leaves <<= 1;
  cursor = alloc((<usize>leaves) << 2);
  splits(runStarts, runs, from, cursor);
  for (let s: u32 = 0; s < runs; s++) setU32(cursor, s, u32At(cursor, s) + u32At(runStarts, s));
  const nodeImg = alloc((<usize>leaves) << 3);
  const nodeTie = alloc((<usize>leaves) << 2);
  runs_ = runs;
  let w = build(nodeImg, nodeTie);
  for (let i: u32 = 0; i < count; i++) {
    const run = w & (leaves - 1);
    const e = u32At(cursor, run);
    setU32(outRun, i, run);
    setU32(outPos, i, e - u32At(runStarts, run));
    setU32(cursor, run, e + 1);
    w = keyCount() == 1 ? replay(nodeImg, nodeTie, run) : replayMulti(nodeImg, nodeTie, run);
  }
  release(m);
  return count;
}

/** The head of leaf s as (image, tie); spent runs and padding leaves lose to everything. */
@inline function head(s: u32): i64 {
  return s < runs_ && u32At(cursor, s) < u32At(starts, s + 1) ? imageAt(0, u32At(cursor, s)) : i64.MAX_VALUE;
}
@inline function tieOf(s: u32): u32 {
  return s < runs_ && u32At(cursor, s) < u32At(starts, s + 1) ? s : s + leaves;
}

/** Plays the initial tournament bottom-up, filling the nodes with losers; returns the winner's tie. */
function build(nodeImg: usize, nodeTie: usize): u32 {
  const m = mark();
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
  release(m);
  return w;
}

/** Whether (image a, tie a) sorts before (image b, tie b), comparing later keys on equal images. */
function before(ia: i64, ta: u32, ib: i64, tb: u32): bool {
  if (ia != ib) return ia < ib;
  if (keyCount() > 1 && ta < leaves && tb < leaves) {
    const ea = u32At(cursor, ta), eb = u32At(cursor, tb);
    for (let j = 1; j < keyCount(); j++) {
      const a = imageAt(j, ea), b = imageAt(j, eb);
      if (a != b) return a < b;
    }
  }
  return ta < tb;
}

/** Replaces leaf `run`'s head and replays its path; single key, branch-free. */
function replay(nodeImg: usize, nodeTie: usize, run: u32): u32 {
  let wi = head(run), wt = tieOf(run);
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
