/**
 * `signal` (issue 27, protocol/mesh-signal-frames.ts): a PeerJS message of a
 * member whose mesh signals on its control socket, handed to the PeerJS side
 * (peer-signaling.ts), which holds it to the peer's rate and shard as a frame
 * of a PeerJS socket. Also the member's {@link PeerLine}: what the PeerJS side
 * sends it leaves as a `signal` frame of this socket.
 */
import { MAX_MESH_SIGNAL_BYTES, MESH_SIGNAL_FRAME_START, type MeshSignalMessage } from '../../../protocol/signaling.js';
import type { PeerLine } from '../../peer-signaling.js';
import type { Connection } from '../control-socket.js';
import type { ServerContext } from '../context.js';
import { sendRaw } from '../outbox.js';
import { fail } from '../refusals.js';

/** Handles a checked `signal` frame of `bytes` bytes. Refusals are answered without an id (a signal has none). */
export function onSignal(ctx: ServerContext, connection: Connection, message: MeshSignalMessage, bytes: number): void {
  if (connection.state === 'joined' && connection.mesh === 'none') {
    // It said it makes no peer connections: it has no peer id, and nobody's offer may come from it.
    return fail(ctx, connection, 'FORBIDDEN', 'signal: this client joined relay only (mesh: false): it has no peer id');
  }
  if (connection.state !== 'joined' || connection.peerId === null || connection.mesh !== 'control') {
    return fail(ctx, connection, 'NOT_CONNECTED', 'signal: this client has no mesh on its control socket (join with meshSignaling first)');
  }
  if (bytes > MAX_MESH_SIGNAL_BYTES) return fail(ctx, connection, 'PAYLOAD_TOO_LARGE', `signal: a frame of ${bytes} bytes is over ${MAX_MESH_SIGNAL_BYTES}`);
  const { type, dst, payload } = message.m;
  ctx.peers.fromLine(connection.peerId, type, dst, payload, bytes);
}

/** The member's control socket as its signalling path (registered with its peer id in handlers/join.ts and take-seat.ts). */
export function controlLine(ctx: ServerContext, connection: Connection): PeerLine {
  return {
    // The PeerJS message is JSON already: spliced, not parsed and serialized again. sendRaw holds it
    // behind `joined` while the member is joining, and drops it for a socket over its buffer.
    send: (text) => sendRaw(ctx, connection, Buffer.from(`${MESH_SIGNAL_FRAME_START}${text}}`)),
    refused: (what) => fail(ctx, connection, 'RATE_LIMITED', `signal: ${what}`),
  };
}
