/**
 * `platform-kit dev`: a template author's workbench, on ONE port and two origins.
 *
 *   http://localhost:PORT/   the workbench: the kit's own <platform-editor>, <platform-feed>,
 *                            players (TemplateFrame), the log and the checks
 *   http://127.0.0.1:PORT/   the template, served by Vite with the author's own config (the
 *                            kit's plugin in it, HMR kept), and the signaling server's routes
 *
 * The signaling server is createSignalingServer on its embedded defaults (shards in memory, a
 * key made per start) with one development project that allows both origins; the workbench
 * tells the template that project at the link (TemplateFrameOptions.projectId), so nothing is
 * baked into the template's build and no environment variable is needed.
 *
 * Why one port, as the demo does (demo/server.ts): the workbench and the template are two
 * origins by host name alone, the template's `Platform.dispatch` finds `/dispatch` on its own
 * host, and Vite's HMR socket shares the port. The workbench's own page is served by a second
 * Vite (no HMR), so its imports of `platform-kit/host` resolve from the template project's
 * node_modules: the same copy of the kit the template uses.
 */
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { resolve } from 'node:path';
import { createMemoryStore, createSignalingServer, PlatformError, type SignalingServer } from '../../signaling/index.js';
import { DevApi } from './dev-api.js';
import { Forwarder } from './forward.js';
import { startTemplateVite, startWorkbenchVite, type ViteServers } from './dev-vite.js';
import { workbenchHtml } from './workbench-page.js';

/** Options of {@link startDev}. */
export interface DevOptions {
  /** The template's folder (its package.json, vite config and `.platform/`). Default: the working directory. */
  readonly root?: string;
  /** Port; 0 picks a free one. Default 5180. */
  readonly port?: number;
  /** Vite's log level. Default 'info'. */
  readonly logLevel?: 'info' | 'warn' | 'error' | 'silent';
}

/** A running workbench. */
export interface DevServer {
  /** The workbench: `http://localhost:PORT/`. */
  readonly url: string;
  /** The template: `http://127.0.0.1:PORT/`. */
  readonly templateUrl: string;
  readonly port: number;
  /** The development project the template is told. */
  readonly projectId: string;
  readonly signaling: SignalingServer;
  /** Stops everything; idempotent. */
  close(): Promise<void>;
}

/** The development project: one per workbench, named so that its logs say where they come from. */
export const DEV_PROJECT_ID = 'dev';
/** The feed's project: its members are the feed's frames alone, so the focus check can count them. */
export const DEV_FEED_PROJECT_ID = 'dev-feed';
/** Default port, beside Vite's 5173 (a template author often has that one running). */
export const DEFAULT_DEV_PORT = 5180;

/** Routes the signaling server answers on the template's origin. */
function isSignalingRoute(path: string): boolean {
  return path === '/dispatch' || path.startsWith('/peerjs/') || path === '/health' || path === '/info' || path.startsWith('/services/');
}

/** What answers the workbench's requests, once started. */
interface Parts {
  readonly forwarder: Forwarder;
  readonly api: DevApi;
  readonly vites: ViteServers;
}

/** Starts the workbench: signaling, the template's Vite, the workbench's Vite and its API, on one port. */
export async function startDev(options: DevOptions = {}): Promise<DevServer> {
  const root = resolve(options.root ?? process.cwd());
  const port = options.port ?? DEFAULT_DEV_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new PlatformError('INVALID_ARGUMENT', `the port must be a whole number from 0 to 65535, not ${String(port)}`);
  const logLevel = options.logLevel ?? 'info';
  const httpServer = createHttpServer();
  // Every TCP connection, upgraded ones too: close() ends them (httpServer.close() waits for each open tab otherwise).
  const connections = new Set<Socket>();
  httpServer.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  // Attached before listening: a request that comes while dev starts (a tab reloaded, a poll)
  // waits for the servers behind it. Attached after, it had no listener and hung for good.
  let parts: Parts | null = null;
  let resolveParts: (value: Parts | null) => void = () => undefined;
  const started = new Promise<Parts | null>((resolveStarted) => {
    resolveParts = (value) => {
      parts = value;
      resolveStarted(value);
    };
  });
  const onRequest = (ready: Parts, request: IncomingMessage, response: ServerResponse): void => {
    const url = new URL(request.url ?? '/', 'http://dev');
    const onTemplateOrigin = (request.headers.host ?? '') === `127.0.0.1:${actualPort}`;
    const notFound = (): void => void response.writeHead(404, { 'content-type': 'text/plain' }).end(`platform-kit dev: no page ${url.pathname}`);
    if (onTemplateOrigin) {
      if (isSignalingRoute(url.pathname)) ready.forwarder.proxy(request, response);
      else if (url.pathname.startsWith('/__platform/')) ready.api.templateRoute(request, response, url, ready.vites.template);
      else ready.vites.template.middlewares(request, response, notFound);
      return;
    }
    if (url.pathname === '/' || url.pathname === '/index.html') {
      // As written, not through transformIndexHtml: that would inject Vite's client, which opens
      // an HMR socket this Vite does not have (hmr: false) and logs "WebSocket closed without opened".
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(workbenchHtml());
    } else if (url.pathname.startsWith('/__platform/')) ready.api.workbenchRoute(request, response, url);
    else ready.vites.workbench.middlewares(request, response, notFound);
  };
  const onUpgrade = (ready: Parts, request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const path = new URL(request.url ?? '/', 'http://dev').pathname;
    // The template's Vite takes its HMR upgrades itself (hmr.server); these two are the signaling server's.
    if (path === '/dispatch' || path === '/peerjs/peerjs') ready.forwarder.tunnel(request, socket, head);
  };
  httpServer.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (parts) return onRequest(parts, request, response);
    void started.then((ready) =>
      ready ? onRequest(ready, request, response) : void response.writeHead(503, { 'content-type': 'text/plain' }).end('platform-kit dev did not start'),
    );
  });
  httpServer.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (parts) return onUpgrade(parts, request, socket, head);
    void started.then((ready) => (ready ? onUpgrade(ready, request, socket, head) : void socket.destroy()));
  });
  await new Promise<void>((resolveListen, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, '127.0.0.1', () => {
      httpServer.off('error', reject);
      resolveListen();
    });
  });
  const actualPort = (httpServer.address() as AddressInfo).port;
  const workbenchOrigin = `http://localhost:${actualPort}`;
  const templateOrigin = `http://127.0.0.1:${actualPort}`;

  const adminKey = randomBytes(18).toString('base64url');
  const store = createMemoryStore();
  const signaling = createSignalingServer({
    port: 0,
    host: '127.0.0.1',
    projects: {
      [DEV_PROJECT_ID]: { token: randomBytes(18).toString('base64url'), allowedOrigins: [templateOrigin, workbenchOrigin] },
      [DEV_FEED_PROJECT_ID]: { token: randomBytes(18).toString('base64url'), allowedOrigins: [templateOrigin, workbenchOrigin] },
    },
    store,
    // The forwarder (forward.ts) in front appends the client's address: a phone's joins count as the phone's.
    trustProxy: 1,
    secretKey: randomBytes(32),
    adminKey,
    log: (line) => console.error(line),
  });
  let vites: ViteServers | null = null;
  let api: DevApi | null = null;
  let forwarder: Forwarder | null = null;
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      api?.close();
      forwarder?.close();
      await vites?.template.close();
      await vites?.workbench.close();
      await new Promise<void>((resolveClose) => {
        httpServer.close(() => resolveClose());
        for (const socket of connections) socket.destroy();
      });
      await signaling.close();
      await store.close();
    })();
    return closing;
  };

  try {
    await signaling.ready;
    const address = new URL(signaling.url);
    forwarder = new Forwarder({ host: address.hostname, port: Number(address.port) });
    api = new DevApi({ root, projectId: DEV_PROJECT_ID, feedProjectId: DEV_FEED_PROJECT_ID, templateOrigin, servicesUrl: signaling.url, adminKey, store });
    const template = await startTemplateVite({ root, httpServer, logLevel, probeOrigin: templateOrigin, onBuild: (result) => api?.customizationBuilt(result) });
    const workbench = await startWorkbenchVite({ root, logLevel });
    vites = { template, workbench };
    // Any file of the template (not node_modules, which Vite does not watch): its bundle's size is stale.
    for (const event of ['change', 'add', 'unlink'] as const) template.watcher.on(event, () => api?.templateChanged());
  } catch (error) {
    resolveParts(null);
    await close();
    throw error;
  }
  resolveParts({ forwarder, api, vites });

  return { url: `${workbenchOrigin}/`, templateUrl: `${templateOrigin}/`, port: actualPort, projectId: DEV_PROJECT_ID, signaling, close };
}
