/**
 * The heartbeat: one sweep for every socket of the server (no timer per
 * socket), every SignalingServerOptions.heartbeatIntervalMs. A control socket
 * that has not joined within joinTimeoutMs is closed (4008); one silent for
 * two intervals (no pong, no frame) is terminated and its presence follows;
 * the others are pinged. The PeerJS sockets are swept in the same pass.
 *
 * The sweep runs in slices of {@link SWEEP_SLICE} sockets with the event
 * loop free between them: a ping is a socket write, and 16,667 of them in
 * one go held a node's loop for 0.5 to 2 s every interval (cluster-scale at
 * 100,000 clients), long enough for its lease renewal's timer to fire past
 * a 3 s lease, and for every frame of its clients to wait as long.
 */
import { CLOSE_CODES } from '../../protocol/signaling.js';
import { closeSoon } from '../close-soon.js';
import type { Connection } from './control-socket.js';
import { liveConnections, type ServerContext } from './context.js';
import { clock } from './rate-buckets.js';

/** Sockets handled before the sweep lets the event loop run (timers, I/O) again. */
export const SWEEP_SLICE = 500;

/** One socket's turn in the sweep. */
function sweepConnection(ctx: ServerContext, connection: Connection, since: number): void {
  const { socket } = connection;
  if (socket.readyState === socket.CLOSED) return; // closed while the sweep went on: its close handler did the rest
  // 'joining' too: a join waiting on a store that does not answer is bounded by the same timeout,
  // counted from its turn (join-gate.ts); one still waiting for its turn is not timed out.
  const joinSince = connection.state === 'new' ? connection.openedAt : connection.state === 'joining' && connection.joinTurnAt >= 0 ? connection.joinTurnAt : null;
  if (joinSince !== null && since - joinSince > ctx.settings.joinTimeoutMs) {
    // Terminated if it does not answer within a second: a client that never does would otherwise
    // hold it for ws's 30 s closing handshake (this branch comes back each sweep, never the next).
    if (socket.readyState === socket.OPEN) closeSoon(socket, CLOSE_CODES.JOIN_TIMEOUT, 'join timeout');
  } else if (!connection.alive) {
    // Two intervals without a pong or a frame: the socket is dead (or the network is); presence follows.
    socket.terminate();
  } else {
    connection.alive = false;
    socket.ping();
  }
}

/** Starts the sweep (unref'd: it never keeps the process alive); clearInterval stops it. */
export function startHeartbeat(ctx: ServerContext): ReturnType<typeof setInterval> {
  /** True while a sweep's slices are still running: a tick that comes meanwhile is skipped. */
  let sweeping = false;
  const sweep = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    const now = Date.now();
    const since = clock();
    // A snapshot: sockets that join, leave or close between slices change the live sets.
    const connections = [...liveConnections(ctx)];
    let next = 0;
    const slice = (): void => {
      if (ctx.closing) {
        sweeping = false;
        return;
      }
      const end = Math.min(next + SWEEP_SLICE, connections.length);
      for (; next < end; next++) sweepConnection(ctx, connections[next]!, since);
      if (next < connections.length) {
        setImmediate(slice);
        return;
      }
      ctx.peers.sweep(now);
      sweeping = false;
    };
    slice();
  }, ctx.settings.heartbeatIntervalMs);
  sweep.unref();
  return sweep;
}
