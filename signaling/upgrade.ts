/**
 * The transport: HTTP upgrades to WebSockets. `/dispatch` becomes a control
 * socket (unless its address already holds
 * SignalingLimits.maxUnjoinedSocketsPerAddress unjoined ones: 429, before any
 * socket is made), with the join offered in its handshake handled as if it
 * were its first frame; `/peerjs/peerjs` goes to the PeerJS side
 * (peer-signaling.ts); anything else is 404.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { jsonDepthWithin } from '../protocol/data.js';
import { PlatformError } from '../protocol/errors.js';
import { CONTROL_PATH, CONTROL_SUBPROTOCOL, FRAME_ENVELOPE_BYTES, parseHandshakeJoin, PEERJS_PATH } from '../protocol/signaling.js';
import { clientIp, isLoopback, limitKey } from './client-address.js';
import { Connection, controlSocketClass, type ControlSocket } from './control/control-socket.js';
import type { ServerContext } from './control/context.js';
import { controlHandlers, invalid, onClientMessage, stateFrameBytes, threw } from './control/door.js';
import { corkStream } from './control/outbox.js';
import { clock } from './control/rate-buckets.js';

/** The WebSocket servers upgrades are handed to: made once per server. */
interface Targets {
  readonly control: WebSocketServer;
  readonly peer: WebSocketServer;
  readonly decodeJoin: (encoded: string) => string;
}

/** A handshake join's text, refused (thrown, so parseHandshakeJoin answers null) past `maxDepth`, like any frame. */
function decodeHandshakeJoin(encoded: string, maxDepth: number): string {
  const text = Buffer.from(encoded, 'base64url').toString('utf8');
  if (!jsonDepthWithin(text, maxDepth)) throw new PlatformError('INVALID_MESSAGE', `the join nests deeper than ${maxDepth} levels`);
  return text;
}

/** The `upgrade` listener of the server's HTTP server. */
export function upgradeListener(ctx: ServerContext): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  // Room for a full payload, its envelope and JSON escaping; larger frames end the socket (ws code 1009).
  // Events, or a state update as large as a shard's state may be (door.ts checks which).
  const maxFrameBytes = Math.max((ctx.limits.maxPayloadBytes + FRAME_ENVELOPE_BYTES) * 4, stateFrameBytes(ctx.limits.maxStateBytes));
  const targets: Targets = {
    control: new WebSocketServer({
      noServer: true,
      maxPayload: maxFrameBytes,
      perMessageDeflate: false,
      clientTracking: false,
      WebSocket: controlSocketClass(controlHandlers(ctx)),
      // A v2 client that joins in the handshake offers this; a browser fails a handshake whose answer selects none.
      handleProtocols: (protocols) => (protocols.has(CONTROL_SUBPROTOCOL) ? CONTROL_SUBPROTOCOL : false),
    }),
    peer: new WebSocketServer({ noServer: true, maxPayload: 256 * 1024, perMessageDeflate: false, clientTracking: false }),
    decodeJoin: (encoded) => decodeHandshakeJoin(encoded, ctx.limits.maxJsonDepth),
  };
  return (request, socket, head) => {
    // A reset during the upgrade must not be an unhandled 'error' (ws adds its own listener once it takes the socket).
    socket.on('error', destroySocket);
    try {
      upgrade(ctx, targets, request, socket, head);
    } catch (error) {
      ctx.log(`platform-kit: upgrade failed: ${String(error)}`);
      socket.destroy();
    }
  };
}

function destroySocket(this: Duplex): void {
  this.destroy();
}

function upgrade(ctx: ServerContext, targets: Targets, request: IncomingMessage, socket: Duplex, head: Buffer): void {
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  // Origin-form (`/dispatch?…`) is what clients send; anything else goes through the URL parser.
  const pathname = url.startsWith('/') ? (query < 0 ? url : url.slice(0, query)) : URL.canParse(url, 'http://server') ? new URL(url, 'http://server').pathname : undefined;
  if (pathname === undefined) {
    // An absolute-form target that is no URL (`GET http://[::1`): the client's fault, answered as such.
    answerAndClose(socket, '400 Bad Request');
  } else if (pathname === CONTROL_PATH) {
    const settings = ctx.settings;
    // Read once: the per-address limits count its /64 (client-address.ts), a project's backendJoinsFromLoopbackOnly the address itself.
    const ip = clientIp(request, settings.trustProxy);
    const address = settings.addressNeeded ? limitKey(ip) : '';
    if (settings.unjoinedLimited && (ctx.unjoinedByAddress.get(address) ?? 0) >= ctx.limits.maxUnjoinedSocketsPerAddress) {
      // Before any WebSocket is made: an address holding this many unjoined sockets gets no more.
      ctx.counters.upgradesRefused++;
      answerAndClose(socket, '429 Too Many Requests');
      return;
    }
    // Uncorked at the end of the turn: the 101 and a handshake join's `joined` leave in one write.
    corkStream(ctx, socket);
    targets.control.handleUpgrade(request, socket, head, (ws) => {
      socket.off('error', destroySocket); // ws listens from here on
      const control = ws as ControlSocket;
      try {
        onControlSocket(ctx, targets, control, request, address, isLoopback(ip));
      } catch (error) {
        // The door's catch for the handshake join (the socket's own events have theirs).
        if (control.connection) threw(ctx, control.connection, error, 'handshake');
        else control.terminate();
      }
    });
  } else if (pathname === `${PEERJS_PATH}peerjs`) {
    targets.peer.handleUpgrade(request, socket, head, (ws) => {
      socket.off('error', destroySocket);
      ctx.peers.accept(ws, request);
    });
  } else {
    answerAndClose(socket, '404 Not Found');
  }
}

/**
 * Answers a refused upgrade and closes the connection once the answer is out. end() alone only
 * half-closes it: the HTTP server's timeouts no longer watch an upgrade's socket, so a client
 * that never closes its side would hold it (and its file descriptor) for good, one per request.
 */
function answerAndClose(socket: Duplex, status: string): void {
  socket.once('finish', destroySocket);
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** A new control socket: its connection, counted (unjoined, per address), and the join of its handshake if any. */
function onControlSocket(ctx: ServerContext, targets: Targets, socket: ControlSocket, request: IncomingMessage, address: string, fromLoopback: boolean): void {
  const connection = new Connection(socket, clock(), ctx.limits);
  // From here on the socket's events reach the door (controlSocketClass).
  socket.connection = connection;
  // Read at the upgrade: the request (and its X-Forwarded-For) is gone by the time a later join frame comes.
  connection.address = address;
  connection.fromLoopback = fromLoopback;
  // Counted while it is in ctx.unjoined (added just below): leaveUnjoined takes it out of both.
  if (ctx.settings.unjoinedLimited) ctx.unjoinedByAddress.set(address, (ctx.unjoinedByAddress.get(address) ?? 0) + 1);
  const origin = request.headers.origin;
  if (typeof origin === 'string') connection.origin = origin;
  ctx.unjoined.add(connection);
  ctx.connectionCount++;
  // v2: the join may come with the handshake; then it is handled as if it were the first frame.
  const offered = parseHandshakeJoin(request.headers['sec-websocket-protocol'], targets.decodeJoin);
  if (offered === undefined) return;
  const now = clock();
  if (offered === null) return invalid(ctx, connection, now, 'malformed join in the handshake');
  onClientMessage(ctx, connection, offered, 0, now);
}
