/**
 * Ordinals that order a keyword field's terms across every segment of a search, built so that a
 * refresh costs what its new segments hold rather than what the index holds.
 *
 * A build numbers the union of the segments' sorted term dictionaries in order, {@link SPACING}
 * apart, and keeps each dictionary's map (local ordinal → global one). The next build, after a
 * refresh has added a segment or two, keeps the maps of the dictionaries it already knows as they
 * are, and gives each new term its known ordinal or one in the gap between its neighbours'. Only
 * when a gap has no room left (many new terms between the same two) is everything numbered afresh.
 * Renumbering everything after each refresh took 30 to 60 ms over the cities' 120,000 names, on
 * the first keyword sort after the refresh, and held the event loop as long.
 *
 * Ordinals are not consecutive, so a term no segment holds (a `search_after` value, a `missing`
 * stand-in) is placed by {@link SortOrdinals.ordinalOf}: strictly between its neighbours'.
 */
import type { TermsLineage } from '../../segments/merge.ts';
import type { Segment } from '../../segments/segment.ts';
import { compareTerms, globalOrdinals, lowerBound, ordinalsMerge, unitOrderHolds } from '../../terms.ts';
import { gallop } from '../../binary-search.ts';

/** The room between two neighbouring terms numbered afresh. */
export const SPACING = 2 ** 20;

export interface SortOrdinals {
  /** Per dictionary, in the order given, each term's ordinal: increasing along the dictionary, equal for equal terms. */
  readonly maps: readonly Float64Array[];
  /** A term's ordinal if a dictionary holds it; for any other term, a value strictly between its neighbours'. */
  ordinalOf(term: string): number;
}

/** The global ordinals of a keyword field over every segment of a search, and where each segment's dictionary is among them. */
export interface KeywordOrdinals {
  ordinals: SortOrdinals;
  /** The dictionary index of target t's segment, -1 when it has no such column. */
  at(t: number, segment: Segment): number;
}

/**
 * What one build leaves for the next: its dictionaries and their maps, one numbering. The next build
 * keeps the maps of the dictionaries it still has, and looks terms up in all of them: a segment
 * merged from two that are gone finds its terms' ordinals there, rather than taking room in gaps.
 */
export interface OrdinalsCarry {
  readonly dictionaries: readonly (readonly string[])[];
  readonly maps: readonly Float64Array[];
}

/** The ordinals of `dictionaries` (each sorted, distinct), from those an earlier build carried if it can. */
export function sortOrdinals(dictionaries: readonly (readonly string[])[], carry?: OrdinalsCarry): SortOrdinals {
  const maps = (carry && extended(dictionaries, carry)) ?? afresh(dictionaries);
  return { maps, ordinalOf: (term) => ordinalOf(dictionaries, maps, term) };
}

/** What the next build over mostly the same dictionaries extends. */
export function carryOf(dictionaries: readonly (readonly string[])[], ordinals: SortOrdinals): OrdinalsCarry {
  return { dictionaries, maps: ordinals.maps };
}

/**
 * The carry with a merge's parts replaced by the merged dictionary, numbered from the parts' maps:
 * a merge keeps some of its parts' terms and adds none, so each merged term takes the ordinal its
 * part gave it. A part the carry does not number (a segment a refresh published and a merge took
 * before any keyword sort) is numbered first, among the carry's terms, as a build would: that costs
 * what the part holds, where placing the whole merged dictionary costs what both hold. Undefined when
 * that part cannot be placed (the next build numbers the merged terms itself).
 */
export function carriedThroughMerge(carry: OrdinalsCarry, lineage: TermsLineage): OrdinalsCarry | undefined {
  const unknown = lineage.parts.filter((part) => !carry.dictionaries.includes(part));
  if (unknown.length > 0) {
    const dictionaries = [...carry.dictionaries, ...unknown];
    const maps = extended(dictionaries, carry);
    if (!maps) return undefined;
    carry = { dictionaries, maps };
  }
  const at = lineage.parts.map((part) => carry.dictionaries.indexOf(part));
  const map = new Float64Array(lineage.terms.length);
  at.forEach((d, p) => {
    const from = carry.maps[d], remap = lineage.remaps[p];
    for (let ord = 0; ord < remap.length; ord++) if (remap[ord] >= 0) map[remap[ord]] = from[ord];
  });
  const gone = new Set(at);
  const kept = (_: unknown, d: number) => !gone.has(d);
  return { dictionaries: [...carry.dictionaries.filter(kept), lineage.terms], maps: [...carry.maps.filter(kept), map] };
}

function afresh(dictionaries: readonly (readonly string[])[]): Float64Array[] {
  return spaced(globalOrdinals(dictionaries).maps);
}

function spaced(ranks: readonly Uint32Array[]): Float64Array[] {
  return ranks.map((local) => {
    const map = new Float64Array(local.length);
    for (let x = 0; x < local.length; x++) map[x] = local[x] * SPACING;
    return map;
  });
}

/** Terms merged per step of an {@link OrdinalsWarmup}: a few milliseconds. */
const WARMUP_STEP_TERMS = 8192;

/**
 * A first build of a field's ordinals, done a step at a time between other work: numbering every
 * term of the cities' names at once took about 100 ms, on the first keyword sort after a start. A
 * search that needs the ordinals before the last step finishes the rest itself.
 */
export class OrdinalsWarmup {
  readonly #merge: ReturnType<typeof ordinalsMerge>;
  #carry: OrdinalsCarry | undefined;

  constructor(readonly dictionaries: readonly (readonly string[])[]) {
    this.#merge = ordinalsMerge(dictionaries);
  }

  /** Merges some more terms; whether the ordinals are done. */
  step(terms = WARMUP_STEP_TERMS): boolean {
    if (this.#carry) return true;
    const done = this.#merge.advance(terms);
    if (done) this.#carry = { dictionaries: this.dictionaries, maps: spaced(done.maps) };
    return this.#carry !== undefined;
  }

  /** The ordinals, as a carry to build from: what is left is done now. */
  carry(): OrdinalsCarry {
    this.step(Infinity);
    return this.#carry!;
  }
}

/**
 * The maps of `dictionaries` with the carried ones kept as they are and the new dictionaries'
 * terms placed among them; undefined when a gap has too little room (then {@link afresh}).
 */
function extended(dictionaries: readonly (readonly string[])[], carry: OrdinalsCarry): Float64Array[] | undefined {
  const carried = new Map(carry.dictionaries.map((dictionary, d) => [dictionary, carry.maps[d]]));
  const known = dictionaries.map((dictionary) => carried.get(dictionary));
  const added = dictionaries.filter((_, d) => known[d] === undefined);
  if (added.length === 0) return known as Float64Array[];
  // Many new terms: numbering them all afresh costs less than placing each among the old.
  if (!mostlyKnown(dictionaries, (_, d) => known[d] !== undefined)) return undefined;
  // Terms are looked up in every dictionary of the last build, those since dropped too.
  const old = carry.dictionaries, oldMaps = carry.maps;
  if (old.length === 0) return undefined;
  const units = old.every(unitOrderHolds) && added.every(unitOrderHolds);
  const before = (a: string, b: string) => (units ? a < b : compareTerms(a, b) < 0);

  // The new terms, merged and numbered among themselves; then each one's ordinal if an old
  // dictionary holds it, else the ordinals of the old terms either side of it.
  const { terms, maps: newRanks } = globalOrdinals(added);
  const n = terms.length;
  const exact = new Float64Array(n).fill(NaN);
  const below = new Float64Array(n).fill(-Infinity);
  const above = new Float64Array(n).fill(Infinity);
  old.forEach((dictionary, d) => {
    const map = oldMaps[d];
    let at = 0;
    for (let j = 0; j < n; j++) {
      if (!Number.isNaN(exact[j])) continue;
      at = gallop(dictionary, terms[j], at, before);
      if (at < dictionary.length && dictionary[at] === terms[j]) exact[j] = map[at];
      else {
        if (at > 0 && map[at - 1] > below[j]) below[j] = map[at - 1];
        if (at < dictionary.length && map[at] < above[j]) above[j] = map[at];
      }
    }
  });

  // New terms in the same gap share its room, evenly; a gap needs at least 1 between any two
  // ordinals, so that a term between them (ordinalOf) has a place of its own.
  const ordinals = new Float64Array(n);
  for (let j = 0; j < n; ) {
    if (!Number.isNaN(exact[j])) {
      ordinals[j] = exact[j++];
      continue;
    }
    let end = j + 1;
    while (end < n && Number.isNaN(exact[end]) && above[end] === above[j]) end++;
    const count = end - j, lo = below[j], hi = above[j];
    if (lo === -Infinity && hi === Infinity) return undefined;
    const step = lo === -Infinity || hi === Infinity ? SPACING : (hi - lo) / (count + 1);
    if (step < 1) return undefined;
    const start = lo === -Infinity ? hi - step * count : lo + step;
    for (let i = 0; i < count; i++) ordinals[j + i] = start + step * i;
    j = end;
  }

  let a = 0;
  return dictionaries.map((_, d) => {
    const map = known[d];
    if (map) return map;
    const ranks = newRanks[a++];
    const placed = new Float64Array(ranks.length);
    for (let x = 0; x < ranks.length; x++) placed[x] = ordinals[ranks[x]];
    return placed;
  });
}

/**
 * Whether the carry holds at least nine tenths of the terms of `dictionaries` (counting whole
 * dictionaries it has): placing a term among the old costs a search in each old dictionary, so
 * beyond a tenth of new terms a build afresh costs less (measured over the cities' names).
 */
export function coversMost(dictionaries: readonly (readonly string[])[], carry: Pick<OrdinalsCarry, 'dictionaries'>): boolean {
  const carried = new Set(carry.dictionaries);
  return mostlyKnown(dictionaries, (dictionary) => carried.has(dictionary));
}

function mostlyKnown(dictionaries: readonly (readonly string[])[], known: (dictionary: readonly string[], d: number) => boolean): boolean {
  let all = 0, held = 0;
  dictionaries.forEach((dictionary, d) => {
    all += dictionary.length;
    if (known(dictionary, d)) held += dictionary.length;
  });
  return held * 10 >= all * 9;
}

function ordinalOf(dictionaries: readonly (readonly string[])[], maps: readonly Float64Array[], term: string): number {
  let below = -Infinity, above = Infinity;
  for (let d = 0; d < dictionaries.length; d++) {
    const dictionary = dictionaries[d], map = maps[d];
    const at = lowerBound(dictionary, term);
    if (at < dictionary.length && dictionary[at] === term) return map[at];
    if (at > 0 && map[at - 1] > below) below = map[at - 1];
    if (at < dictionary.length && map[at] < above) above = map[at];
  }
  if (below === -Infinity) return above === Infinity ? 0 : above - SPACING;
  return above === Infinity ? below + SPACING : (below + above) / 2;
}
