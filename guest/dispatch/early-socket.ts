/**
 * The control socket of a first `connect()`, opened by Platform.dispatch
 * itself while the session's module loads (dispatch.ts): the module's download
 * and compile overlap the socket's handshake instead of coming before it. It
 * carries the join the session will make (join-frame.ts, in the handshake:
 * protocol/handshake-join.ts), and the session takes it over when it opens its
 * own socket with the same URL and the same join (browser-session.ts). Not
 * taken (another join, a load that failed, a disconnect), it is closed.
 *
 * What the socket hears before the session's handlers are set (its open, the
 * `joined` answer, presence) is held, bounded, by a listener added before any
 * handler (so it runs first and stops the event there), then dispatched again
 * on the socket once it is taken, one event per task and in order, with what
 * arrives meanwhile queued behind. The session gets the socket itself: no
 * wrapper in the first load.
 *
 * In the first load: keep it small (`npm run bench -- guest-size`).
 */
import type { SocketLike } from './types.js';

/**
 * Messages held for the session at most. A server sends `joined` and the shard's presence before
 * anything else; only a session that loads for long in a busy shard could come near it. Past it
 * the socket is closed: one not taken yet is never taken (the session opens its own), one taken
 * hears its close after what it was handed, and reconnects.
 */
const MAX_HELD_MESSAGES = 1_000;

/** See the module comment. */
export class EarlySocket {
  readonly #socket: WebSocket;
  /** The URL and the join (as offered in the handshake) the session's own socket must have to take this one. */
  readonly #wanted: string;
  /** Events not handed over yet, in order; null once they go straight to the handlers. */
  #held: Event[] | null = [];
  /** Taken, discarded or given up: never taken (again). */
  #done = false;
  /** Posts the tasks that hand held events over one at a time (see #flush). */
  #tasks: MessageChannel | undefined;

  constructor(url: string, protocols: readonly string[]) {
    this.#wanted = url + protocols.join();
    // Its binaryType is set by the connection that takes it; until then no binary frame comes (the
    // one binary frame of the wire answers a state vector, which an early join never carries).
    const socket = new WebSocket(url, [...protocols]);
    for (const type of ['open', 'message', 'close', 'error']) socket.addEventListener(type, (event) => this.#hold(event));
    this.#socket = socket;
  }

  /** The socket, for the session's first one when it asks for this URL and this join; else null (and this one is closed). */
  take(url: string, protocols: readonly string[] | undefined): SocketLike | null {
    if (this.#done) return null;
    this.#done = true;
    if (protocols && url + protocols.join() === this.#wanted) {
      // The connection sets its handlers in the turn that called take() (control-connection.ts open()).
      queueMicrotask(() => this.#flush());
      return this.#socket as unknown as SocketLike;
    }
    this.#close();
    return null;
  }

  /** Closes the socket unless the session took it (once the session opened its own, or could not be made). */
  discard(): void {
    if (this.#done) return;
    this.#done = true;
    this.#close();
  }

  #close(): void {
    this.#held = null;
    this.#socket.close(1000, 'not used');
  }

  #hold(event: Event): void {
    const held = this.#held;
    // A held event dispatched again (#flush) is not trusted: it goes through to the handlers.
    if (held === null || !event.isTrusted) return;
    // Before every handler (this listener was added first): the handler hears it when it is handed over.
    event.stopImmediatePropagation();
    if (event.type === 'message' && held.length >= MAX_HELD_MESSAGES) {
      // Too much to hold (see MAX_HELD_MESSAGES). Not taken yet: never taken, nothing kept.
      if (this.#done) this.#socket.close();
      else this.discard();
      return;
    }
    held.push(event);
  }

  /**
   * One held event per task, as the browser dispatches a socket's own: what the session does in a
   * microtask after an event (it sets its connection info once `joined` is answered) is done before
   * the next one (the presence behind `joined` must not reach listeners before it). Once drained,
   * events go straight to the handlers.
   */
  #flush(): void {
    const next = this.#held?.shift();
    if (next === undefined) {
      this.#held = null;
      this.#tasks?.port1.close();
      return;
    }
    // A copy (an event once dispatched may keep its stopped flag), which dispatchEvent marks untrusted.
    this.#socket.dispatchEvent(
      next instanceof MessageEvent
        ? new MessageEvent('message', { data: next.data as unknown })
        : next instanceof CloseEvent
          ? new CloseEvent('close', next)
          : new Event(next.type),
    );
    // A task, not a timer: timers are clamped and throttled in busy pages (a timer per event made
    // connect() resolve ~700 ms later in players-meet at load 34).
    if (!this.#tasks) {
      this.#tasks = new MessageChannel();
      this.#tasks.port1.onmessage = () => this.#flush();
    }
    this.#tasks.port2.postMessage(null);
  }
}
