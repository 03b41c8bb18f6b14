/**
 * Forwarding to the signaling server, which listens on its own loopback port
 * (createSignalingServer owns its HTTP server; it has no "attach to mine").
 *
 * - WebSocket upgrades (`/dispatch`, `/peerjs/peerjs`) are tunnelled as raw
 *   TCP: the upgrade request is written to the signaling server as it came,
 *   then bytes flow both ways untouched. No WebSocket library sits in the
 *   middle, so frames, pings and close codes are exactly the server's.
 * - Plain HTTP (`/health`, `/metrics`, `/peerjs/…`) is proxied request by request.
 * - Both append the client's address to X-Forwarded-For, as a proxy does: the
 *   signaling server (created with one more `trustProxy` for this hop) counts
 *   its per-address limits, and a project's `backendJoinsFromLoopbackOnly`,
 *   against the client, not against this forwarder's loopback connection.
 */
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** Where the signaling server listens. */
export interface ForwardTarget {
  readonly host: string;
  readonly port: number;
}

/** Tunnels and proxied requests, so close() can end them. */
export class Forwarder {
  readonly #target: ForwardTarget;
  readonly #open = new Set<Duplex>();

  constructor(target: ForwardTarget) {
    this.#target = target;
  }

  /** Tunnels an upgrade request and its socket to the target. */
  tunnel(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const upstream: Socket = connect(this.#target.port, this.#target.host);
    this.#track(socket);
    this.#track(upstream);
    upstream.setNoDelay(true);
    upstream.once('connect', () => {
      let raw = `${request.method ?? 'GET'} ${request.url ?? '/'} HTTP/${request.httpVersion}\r\n`;
      for (let i = 0; i < request.rawHeaders.length; i += 2) {
        if (request.rawHeaders[i]!.toLowerCase() !== 'x-forwarded-for') raw += `${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}\r\n`;
      }
      upstream.write(`${raw}X-Forwarded-For: ${forwardedFor(request)}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
    // Either end going away ends the other: a half-open tunnel would keep a member "online".
    upstream.once('error', () => socket.destroy());
    socket.once('error', () => upstream.destroy());
    upstream.once('close', () => socket.destroy());
    socket.once('close', () => upstream.destroy());
  }

  /** Proxies one HTTP request to the target. */
  proxy(request: IncomingMessage, response: ServerResponse): void {
    const upstream = httpRequest(
      { host: this.#target.host, port: this.#target.port, method: request.method, path: request.url, headers: { ...request.headers, 'x-forwarded-for': forwardedFor(request) } },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.once('error', (error) => {
      if (!response.headersSent) {
        response.writeHead(502, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ error: { name: 'PlatformError', code: 'NOT_CONNECTED', message: `platform-kit demo: the signaling server is unreachable (${error.message})` } }),
        );
      } else response.destroy();
    });
    request.pipe(upstream);
  }

  /** Ends every open tunnel. */
  close(): void {
    for (const socket of this.#open) socket.destroy();
    this.#open.clear();
  }

  #track(socket: Duplex): void {
    this.#open.add(socket);
    socket.once('close', () => this.#open.delete(socket));
  }
}

/** X-Forwarded-For as it leaves this hop: what came (Node joins repeated headers with ", "), then the client's address. */
function forwardedFor(request: IncomingMessage): string {
  const came = request.headers['x-forwarded-for'];
  const earlier = Array.isArray(came) ? came.join(', ') : (came ?? '');
  const address = request.socket.remoteAddress ?? '';
  return earlier === '' ? address : `${earlier}, ${address}`;
}
