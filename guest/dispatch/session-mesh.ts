/**
 * A session's mesh, as the session sees it: made when a join names this
 * client's peer id (the first join, or a resume on a node that issued a new
 * one), given the members, and handed the `signal` frames of the control
 * socket, kept (bounded) while it does not exist yet. Apart from session.ts,
 * which says when; the mesh itself is peer-transport.ts, loaded lazily
 * (lazy-mesh.ts), and the event sender holds it to send on it.
 */
import type { PlatformError } from '../../protocol/errors.js';
import { meshSignalText, type JoinedMessage, type MemberWire, type MeshSignalFrame } from '../../protocol/signaling.js';
import type { EventReceiver } from './event-receiver.js';
import type { EventSender } from './event-sender.js';
import type { PeerTransportFactory } from './transport.js';

/** Signals kept for a mesh not started yet: an offer and a few candidates from each of a mesh's members. */
const MAX_EARLY_SIGNALS = 256;

/** What the mesh's owner reads and calls. */
export interface SessionMeshHost {
  /** The control socket's URL: the peer id is registered on the node it joined. */
  readonly url: string;
  /** The shard's members (membership.ts), read when the mesh is made and by each frame it hands over. */
  readonly members: ReadonlyMap<string, MemberWire>;
  readonly receiver: EventReceiver;
  readonly sender: EventSender;
  /** Writes a frame on the control socket. */
  write(text: string): void;
  emitError(error: PlatformError): void;
  /** A state update that came on a data channel (state-port.ts hooks). */
  onState(from: string, update: string): void;
}

export class SessionMesh {
  readonly #factory: PeerTransportFactory | undefined;
  readonly #host: SessionMeshHost;
  /** The peer id and token the mesh was made for: another pair means a new mesh. */
  #key = '';
  /** Signals that came before the mesh was made (it starts once the first clock sample is back: session.ts). */
  readonly #early: MeshSignalFrame['m'][] = [];

  /** `factory`: none for a client without a mesh (a backend; `mesh: false`). */
  constructor(factory: PeerTransportFactory | undefined, host: SessionMeshHost) {
    this.#factory = factory;
    this.#host = host;
  }

  /** Makes the mesh the join names (or gives the one it has the members, for the same peer id). */
  start(reply: JoinedMessage): void {
    const factory = this.#factory;
    if (!factory || !reply.peer) return;
    const host = this.#host;
    const members = host.members;
    const key = `${reply.peer.id}/${reply.peer.token}`;
    if (host.sender.peer && this.#key === key) {
      host.sender.peer.setMembers([...members.values()], reply.clientId);
      return;
    }
    // A new peer id (resumed on another node): what the old channels have not delivered goes by the relay.
    host.sender.peer?.close(true);
    this.#key = key;
    const peer = factory(
      {
        url: host.url,
        peerId: reply.peer.id,
        peerToken: reply.peer.token,
        ...(reply.peer.control === true ? { signal: (message: Readonly<Record<string, unknown>>) => host.write(meshSignalText(message)) } : {}),
        meshMaxMembers: reply.limits.meshMaxMembers,
        maxEventsPerSecond: reply.limits.maxEventsPerSecond,
        maxPayloadBytes: reply.limits.maxPayloadBytes,
      },
      {
        onFrame: (clientId, text) => host.receiver.onPeerFrame(clientId, members.get(clientId), text),
        onUndelivered: (clientId, seqs, bodies) => host.sender.resendByRelay(clientId, seqs, bodies),
        onRefused: (_clientId, error) => host.emitError(error),
        onState: (from, update) => host.onState(from, update),
      },
    );
    host.sender.peer = peer;
    peer.setMembers([...members.values()], reply.clientId);
    for (const message of this.#early.splice(0)) peer.onSignal(message);
  }

  /** A `signal` frame for the mesh: to it, or kept (bounded) until it is made. */
  onSignal(message: MeshSignalFrame['m']): void {
    const peer = this.#host.sender.peer;
    if (peer) peer.onSignal(message);
    else if (this.#early.length < MAX_EARLY_SIGNALS) this.#early.push(message);
  }

  /** The session ended: the next join makes a new mesh, and signals kept for this one go. */
  reset(): void {
    this.#early.length = 0;
    this.#key = '';
  }
}
