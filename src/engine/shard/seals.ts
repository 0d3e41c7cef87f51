/**
 * Sealing a shard's buffered documents into segments ahead of the refresh that publishes them.
 * A seal goes a slice at a time (steps.ts) between other work ({@link Seals.sealing}); documents
 * written meanwhile stay for a later seal, and those deleted or replaced meanwhile are marked
 * deleted in the segment when it is published. A refresh that comes first finishes the seal under
 * way at once and seals the rest ({@link Seals.takeAll}).
 */
import type { IndexFamily } from '../field-types.ts';
import { buildSegment } from '../segments/build.ts';
import type { Segment } from '../segments/segment.ts';
import type { BufferedDocs } from '../segments/write-buffer.ts';
import { finish, type Steps } from '../steps.ts';
import type { LiveSegment } from './shard-snapshot.ts';
import type { ShardWrites } from './shard-writes.ts';

/** Buffered documents sealed, not yet published: still in the buffer (so lookups find them) until a refresh publishes the segment. */
interface Sealed {
  docs: BufferedDocs;
  segment: Segment;
}

export class Seals {
  /** Buffered documents sealed into segments that no refresh has published yet. */
  #sealed: Sealed[] = [];
  /** A seal under way, of the documents it took from the buffer. */
  #sealing: { docs: BufferedDocs; steps: Steps<Segment> } | undefined;

  constructor(
    private readonly writes: ShardWrites,
    private readonly familyOf: (field: string) => IndexFamily | undefined,
  ) {}

  /** A seal is under way ({@link sealing}). */
  get underWay(): boolean {
    return this.#sealing !== undefined;
  }

  /**
   * Seals the buffered documents no seal has taken yet into a segment, a slice at a time; the next
   * refresh publishes it.
   */
  *sealing(): Steps<void> {
    if (this.#sealing || this.writes.unsealed === 0) return;
    const docs = this.writes.takeUnsealed();
    const seal = (this.#sealing = { docs, steps: buildSegment(docs, this.familyOf) });
    for (;;) {
      // A refresh finished it (or a newer seal replaced it): nothing is left to do here.
      if (this.#sealing !== seal) return;
      const step = seal.steps.next();
      if (step.done) {
        this.#sealed.push({ docs, segment: step.value });
        this.#sealing = undefined;
        return;
      }
      yield;
    }
  }

  /** For a refresh: the seal under way, if any, is finished now. */
  finishUnderWay(): void {
    if (this.#sealing) this.#sealed.push({ docs: this.#sealing.docs, segment: finish(this.#sealing.steps) });
    this.#sealing = undefined;
  }

  /** A refresh with nothing to publish: every document sealed so far was deleted or replaced since. */
  discard(): void {
    this.#sealed = [];
  }

  /** For a refresh: what no seal has taken is sealed at once, and every sealed segment is handed over as published. */
  takeAll(): LiveSegment[] {
    const rest = this.writes.takeUnsealed();
    if (rest.positions.length > 0) this.#sealed.push({ docs: rest, segment: finish(buildSegment(rest, this.familyOf)) });
    const segments = this.#sealed.map(({ docs, segment }) => this.writes.sealedAsPublished(docs, segment));
    this.#sealed = [];
    return segments;
  }
}
