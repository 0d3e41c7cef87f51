/**
 * Request work in turns: each request's work starts in a turn of its own, one per turn of the
 * event loop, first come first served.
 *
 * Node runs every callback that is ready in one pass of the loop: under load a pass read a hundred
 * requests off their sockets and ran each to its answer before a timer could fire, and the loop
 * was held 160 ms by requests of 2 ms each. Elasticsearch never runs a search on the thread that
 * reads the network; it queues it for the search pool. Here the queue is this one: a request waits
 * for its turn (a `setImmediate`), so that between two requests the loop reads sockets, writes
 * answers and runs timers (refreshes, flushes, cursor expiry), and it is held for as long as one
 * request's work, not a hundred. Requests that are quick share a pass, up to {@link PASS_BUDGET_MS}.
 *
 * @example
 * const turns = new Turns();
 * await turns.take(); // the request's synchronous work runs from here to its next await
 */
/** The context variable holding the app's turns (request-body.ts takes one once a body is in). */
export const TURNS = 'turns' as const;

export class Turns {
  /** Requests in arrival order; a served one's slot is cleared at once (see {@link #serve}). */
  readonly #waiting: ((() => void) | undefined)[] = [];
  #next = 0;
  #scheduled = false;

  /** Resolves at the request's turn: the work that follows runs before the loop moves on. */
  take(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#turn);
      }
    });
  }

  /** Requests waiting for a turn. */
  get waiting(): number {
    return this.#waiting.length - this.#next;
  }

  /** When the current pass began starting requests. */
  #passStarted = 0;

  // Callbacks made once, not per pass (the server's loader names each closure it makes).
  readonly #turn = () => {
    this.#passStarted = performance.now();
    this.#serve();
  };

  #serve(): void {
    const resolve = this.#waiting[this.#next]!;
    // Let go of it now: under steady load the queue never empties, and a served request's resolver
    // (with its promise and the handler's suspended state) would stay reachable until the next
    // splice, long enough for the young generation to copy it and promote it.
    this.#waiting[this.#next++] = undefined;
    if (this.#next >= 1024 && this.#next * 2 >= this.#waiting.length) {
      // Drop the served part of a long queue now and then, rather than shifting at every turn.
      this.#waiting.splice(0, this.#next);
      this.#next = 0;
    }
    resolve();
    // Runs once the request's synchronous work (up to its first await) is done.
    queueMicrotask(this.#served);
  }

  readonly #served = () => {
    if (this.#next === this.#waiting.length) {
      this.#waiting.length = 0;
      this.#next = 0;
      this.#scheduled = false;
    } else if (performance.now() - this.#passStarted < PASS_BUDGET_MS) {
      this.#serve();
    } else {
      // The pass has had its share: the next turn runs in the loop's next pass.
      setImmediate(this.#turn);
    }
  };
}

/**
 * How long one pass of the loop goes on starting requests: short ones (a `GET /`, a shallow page)
 * share a pass, which saves a pass of the loop per request; a long one has the pass to itself.
 */
const PASS_BUDGET_MS = 1;
