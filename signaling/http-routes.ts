/**
 * The server's own HTTP routes, after the services (services/router.ts) have
 * answered theirs (`/services/…`, `/cdn/…`): `GET /` (what this server is),
 * `GET /health`, `GET /metrics` (Prometheus text) and `GET /info` (the
 * project's shards, for its credentials in headers).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPlatformError, PlatformError, serializeError } from '../protocol/errors.js';
import { CONTROL_PATH, PEERJS_PATH, SIGNALING_VERSION } from '../protocol/signaling.js';
import type { ServerContext } from './control/context.js';
import { projectOf } from './projects.js';
import type { SignalingMetrics } from './server-options.js';
import { PROJECT_ID_HEADER, sameSecret, statusOf } from './services/http.js';

/** The server's counters and memory, as `GET /metrics` and `server.metrics()` report them. */
export function metrics(ctx: ServerContext): SignalingMetrics {
  const memory = process.memoryUsage();
  const stats = ctx.store.stats();
  return {
    connections: ctx.connectionCount,
    shards: stats.shards,
    members: stats.members,
    peerSockets: ctx.peers.sockets,
    ...ctx.counters,
    heapUsedBytes: memory.heapUsed,
    rssBytes: memory.rss,
  };
}

/**
 * The `request` listener of the server's HTTP server: a coded error answers
 * its status; anything else (a store failure, a bug) is logged and answers
 * 500 INTERNAL without its message, which may name hosts or credentials.
 */
export function requestListener(ctx: ServerContext): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    onRequest(ctx, request, response).catch((error: unknown) => {
      if (!isPlatformError(error)) ctx.log(`platform-kit: ${String(error)}`);
      const wire = serializeError(isPlatformError(error) ? error : new PlatformError('INTERNAL', 'internal error'));
      if (!response.headersSent) json(response, statusOf(wire.code), wire);
      else response.end();
    });
  };
}

/**
 * The request target as a URL. Node's parser lets through an absolute-form
 * target that is no URL (`GET http://[::1 HTTP/1.1`): that is the client's
 * fault, INVALID_ARGUMENT (400), not a failure of the server.
 */
function requestUrl(request: IncomingMessage): URL {
  try {
    return new URL(request.url ?? '/', 'http://server');
  } catch {
    throw new PlatformError('INVALID_ARGUMENT', 'the request target is not a URL');
  }
}

async function onRequest(ctx: ServerContext, request: IncomingMessage, response: ServerResponse): Promise<void> {
  // The services answer their own prefixes (/services/, /cdn/) and leave the rest to the routes below.
  if (await ctx.running().services.handle(request, response)) return;
  const url = requestUrl(request);
  const route = `${request.method ?? 'GET'} ${url.pathname}`;
  switch (route) {
    case 'GET /':
      return json(response, 200, { name: 'platform-kit signaling', version: SIGNALING_VERSION, control: CONTROL_PATH, peerjs: PEERJS_PATH });
    case 'GET /health':
      return json(response, 200, { status: 'ok', connections: ctx.connectionCount, ...(ctx.nodeId === null ? {} : { node: ctx.nodeId }) });
    case 'GET /metrics': {
      const lines = Object.entries(metrics(ctx)).map(([key, value]) => `platform_kit_${key.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())} ${value}`);
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      return void response.end(lines.join('\n') + '\n');
    }
    case 'GET /info': {
      const projectId = authorizedProject(ctx, request);
      if (!projectId) return json(response, 401, serializeError(new PlatformError('UNAUTHORIZED', 'project id and token required')));
      return json(response, 200, await ctx.store.shards(projectId));
    }
    default:
      if (request.method === 'GET' && url.pathname.startsWith(PEERJS_PATH) && url.pathname.endsWith('/id')) {
        // peerjs asks here for an id when given none; ours are issued with `joined`, bound to a client.
        response.writeHead(403, { 'content-type': 'text/plain' });
        return void response.end('platform-kit: peer ids are issued on the control socket');
      }
      return json(response, 404, serializeError(new PlatformError('NOT_FOUND', `no route ${route}`)));
  }
}

/** Project credentials in headers, as the services take them (`x-platform-project` is the older name of the id header). */
function authorizedProject(ctx: ServerContext, request: IncomingMessage): string | null {
  const projectId = request.headers[PROJECT_ID_HEADER] ?? request.headers['x-platform-project'];
  const header = request.headers.authorization ?? '';
  const token = header.startsWith('Bearer ') ? header.slice(7) : '';
  if (typeof projectId !== 'string') return null;
  const expected = projectOf(ctx.projects, projectId)?.token;
  return expected !== undefined && token.length > 0 && sameSecret(token, expected) ? projectId : null;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}
