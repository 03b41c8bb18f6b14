/**
 * Closing a WebSocket the server is done with, without waiting on the client:
 * used for the control sockets (refusals, the join timeout, leave) and the
 * PeerJS sockets (refusals, a revoked peer id) alike.
 */
import type { WebSocket } from 'ws';

/**
 * How long a socket the server closes may take to answer the close frame
 * before it is terminated. ws waits 30 s; a client that does not read would
 * hold its socket (and whatever it queued) that long, and sockets made to be
 * refused (made-up peer ids) would pile up.
 */
export const CLOSE_LINGER_MS = 1_000;

/** Closes `socket` with `code` and terminates it if the close is not done within {@link CLOSE_LINGER_MS}. */
export function closeSoon(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === socket.CLOSED) return;
  socket.close(code, reason);
  // Only on the way out of a refused or abusive socket: one timer each, never per frame.
  const timer = setTimeout(() => socket.terminate(), CLOSE_LINGER_MS);
  timer.unref?.();
  socket.once('close', () => clearTimeout(timer));
}
