/**
 * Where the shard's state (`platform-kit/guest/state`) plugs into a session:
 * the hooks it gives (types.ts `SessionStateHooks`) and the two ways out it
 * gets, the control socket and the mesh. Apart from session.ts so that the
 * session only says when (a join, a `joined`, a relayed frame) and this file
 * what; it holds no Yjs, so a template without the state pays for none.
 */
import { peerStateFrame, type ServerMessage, type WireLimits } from '../../protocol/signaling.js';
import type { ControlConnection } from './control-connection.js';
import type { EventSender } from './event-sender.js';
import type { SessionStateHooks } from './types.js';

/** The session's state port (one per session, one state attached at a time). */
export class StatePort {
  /** The attached state's hooks, or null. */
  hooks: SessionStateHooks | null = null;
  /** The last join carried a state vector (the hooks were attached before it left). */
  asked = false;
  readonly #connection: ControlConnection;
  readonly #sender: EventSender;
  readonly #limits: () => WireLimits;

  constructor(connection: ControlConnection, sender: EventSender, limits: () => WireLimits) {
    this.#connection = connection;
    this.#sender = sender;
    this.#limits = limits;
  }

  /** Plugs a state in; returns the function that takes it out. */
  attach(hooks: SessionStateHooks): () => void {
    this.hooks = hooks;
    return () => {
      if (this.hooks === hooks) this.hooks = null;
    };
  }

  /** Sends a state frame (an update, or SyncStep1 after the join) and waits for its answer. */
  request(frame: { readonly type: 'state'; readonly update: string } | { readonly type: 'stateSync'; readonly sv: string }): Promise<ServerMessage> {
    const id = this.#connection.nextId();
    // `id` second: the server's door knows a large state frame by its first bytes (`{"type":"state","id":`).
    return this.#connection.request(frame.type === 'state' ? { type: 'state', id, update: frame.update } : { type: 'stateSync', id, sv: frame.sv });
  }

  /** Sends an update (base64) over every open data channel, when it fits an event's size; the server relays it to all anyway. */
  toPeers(update: string): void {
    if (update.length <= this.#limits().maxPayloadBytes) this.#sender.peer?.sendState(peerStateFrame(update));
  }
}
