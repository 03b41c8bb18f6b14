/**
 * Calls from peer ids that no member of ours has yet, held instead of
 * refused. The caller learnt of us from its `joined` list and called at once,
 * while its own arrival is still on its way to us as presence (coalesced, and
 * through Redis when the two are on different nodes). Refused, the pair would
 * never have met and stayed on the relay. At most {@link MAX_HELD_CALLS} calls
 * are held, each until its member shows up or the pair's timeout ends; frames
 * that come on a held call's channel wait with it, in order (bounded: past
 * {@link MAX_HELD_FRAMES} the call is closed, and the caller resends what it
 * holds unacknowledged by the relay). The server forwards signaling only
 * within a shard, so a held caller is a member of ours.
 *
 * Apart from the mesh because it is a waiting room with its own bounds and
 * timers, and the mesh only asks it for a call when the member shows up.
 */
import type { DataConnection } from 'peerjs';

/** Calls held until their member is known, and the frames one may bring meanwhile. */
const MAX_HELD_CALLS = 16;
const MAX_HELD_FRAMES = 256;

/** A held call, handed over when its member shows up. */
export interface HeldCall {
  readonly connection: DataConnection;
  readonly timer: ReturnType<typeof setTimeout>;
  /** Frames its channel brought before the member was known, in order. */
  readonly frames: unknown[];
}

/** The calls held, by peer id. */
export class HeldCalls {
  readonly #calls = new Map<string, HeldCall>();
  readonly #timeoutMs: number;

  /** A call is held at most `timeoutMs` (the pair's timeout). */
  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** Holds a call from a peer id we do not know yet; closes it when the room is full. */
  hold(connection: DataConnection): void {
    const peerId = connection.peer;
    if (!this.#calls.has(peerId) && this.#calls.size >= MAX_HELD_CALLS) {
      connection.close();
      return;
    }
    this.drop(peerId); // a newer call from the same peer replaces the one held
    const held: HeldCall = { connection, timer: setTimeout(() => this.drop(peerId, held), this.#timeoutMs), frames: [] };
    this.#calls.set(peerId, held);
    connection.on('open', () => {
      if (this.#calls.get(peerId) !== held) return;
      connection.dataChannel.onmessage = (event: MessageEvent<unknown>) => {
        if (held.frames.length < MAX_HELD_FRAMES) held.frames.push(event.data);
        else this.drop(peerId, held);
      };
    });
    connection.on('close', () => this.drop(peerId, held));
  }

  /** The call held from `peerId`, no longer held (its timer stopped), or undefined. */
  take(peerId: string): HeldCall | undefined {
    const held = this.#calls.get(peerId);
    if (!held) return undefined;
    this.#calls.delete(peerId);
    clearTimeout(held.timer);
    return held;
  }

  /** Closes the held call of `peerId` (only `which`, when given). */
  drop(peerId: string, which?: HeldCall): void {
    const held = this.#calls.get(peerId);
    if (!held || (which && held !== which)) return;
    this.#calls.delete(peerId);
    clearTimeout(held.timer);
    held.connection.close();
  }

  /** Closes every held call. */
  clear(): void {
    for (const peerId of [...this.#calls.keys()]) this.drop(peerId);
  }
}
