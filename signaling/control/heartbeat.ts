/**
 * The heartbeat: one sweep for every socket of the server (no timer per
 * socket), every SignalingServerOptions.heartbeatIntervalMs. A control socket
 * that has not joined within joinTimeoutMs is closed (4008); one silent for
 * two intervals (no pong, no frame) is terminated and its presence follows;
 * the others are pinged. The PeerJS sockets are swept in the same pass.
 */
import { CLOSE_CODES } from '../../protocol/signaling.js';
import { closeSoon } from '../close-soon.js';
import { liveConnections, type ServerContext } from './context.js';
import { clock } from './rate-buckets.js';

/** Starts the sweep (unref'd: it never keeps the process alive); clearInterval stops it. */
export function startHeartbeat(ctx: ServerContext): ReturnType<typeof setInterval> {
  const sweep = setInterval(() => {
    const now = Date.now();
    const since = clock();
    for (const connection of liveConnections(ctx)) {
      // 'joining' too: a join waiting on a store that does not answer is bounded by the same timeout.
      if ((connection.state === 'new' || connection.state === 'joining') && since - connection.openedAt > ctx.settings.joinTimeoutMs) {
        // Terminated if it does not answer within a second: a client that never does would otherwise
        // hold it for ws's 30 s closing handshake (this branch comes back each sweep, never the next).
        if (connection.socket.readyState === connection.socket.OPEN) closeSoon(connection.socket, CLOSE_CODES.JOIN_TIMEOUT, 'join timeout');
      } else if (!connection.alive) {
        // Two intervals without a pong or a frame: the socket is dead (or the network is); presence follows.
        connection.socket.terminate();
      } else {
        connection.alive = false;
        connection.socket.ping();
      }
    }
    ctx.peers.sweep(now);
  }, ctx.settings.heartbeatIntervalMs);
  sweep.unref();
  return sweep;
}
