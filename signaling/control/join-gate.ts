/**
 * Joins in progress on one node: at most {@link JOINS_IN_PROGRESS} at once,
 * the rest wait their turn in arrival order, at most {@link JOINS_WAITING}.
 *
 * Why: a join is a few store round trips and some CPU. Unbounded, N joins
 * that arrive together (the clients of a node that died resuming on the
 * others, 2,800 per node at 100,000 clients) all progress together and all
 * finish at the end, ~14 s later on 2 shared cores: past the join timeout
 * (10 s), which closed them, and they came again (cluster-scale, RESULTS.md,
 * "third session", run C). In turns, the first finish in a fraction of a
 * second and every one finishes as early as the node's pace allows; the join
 * timeout counts from a join's turn (heartbeat.ts), since the wait is this
 * node's, not the store's. Past JOINS_WAITING the node is overloaded and says
 * so at once (UNAVAILABLE: the client backs off and may try another node).
 */

/** Joins that run at once (enough to keep a Redis round trip's worth of joins in flight). */
export const JOINS_IN_PROGRESS = 64;
/** Joins that may wait their turn; past it a join is refused UNAVAILABLE at once. */
export const JOINS_WAITING = 20_000;

/** The gate's one-call release: idempotent, so a close and the join's own end may both call it. */
export type ReleaseTurn = () => void;

export interface JoinGate {
  /** A turn: resolves when the join may go; null when too many wait already. */
  enter(): Promise<ReleaseTurn> | null;
  readonly running: number;
  readonly waiting: number;
}

export function createJoinGate(inProgress = JOINS_IN_PROGRESS, maxWaiting = JOINS_WAITING): JoinGate {
  let running = 0;
  const queue: Array<(release: ReleaseTurn) => void> = [];
  /** The index of the queue's head: shift() on a 20,000-long array is a copy each time. */
  let head = 0;
  const release = (): ReleaseTurn => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      running--;
      next();
    };
  };
  const next = (): void => {
    while (running < inProgress && head < queue.length) {
      const grant = queue[head]!;
      queue[head++] = undefined as never; // let the closure go
      running++;
      grant(release());
    }
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    }
  };
  return {
    enter() {
      if (running < inProgress && head === queue.length) {
        running++;
        return Promise.resolve(release());
      }
      if (queue.length - head >= maxWaiting) return null;
      return new Promise<ReleaseTurn>((resolve) => queue.push(resolve));
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length - head;
    },
  };
}
