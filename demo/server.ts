/**
 * The demo server: everything on ONE port.
 *
 *   http://localhost:PORT/            host pages: the feed, the editor, the shard dashboard
 *   http://127.0.0.1:PORT/templates/  the templates (another origin: the boundary is real)
 *
 * One Node HTTP server routes every request and upgrade:
 *   - `/dispatch`, `/peerjs/*`, `/health`, `/metrics`, `/info`, `/services/*`,
 *     `/cdn/*`: the signaling server (createSignalingServer on its embedded
 *     defaults: shards in memory; keystore, CDN and keys in the data folder),
 *     which listens on a loopback port of its own; its WebSocket upgrades are
 *     tunnelled as raw TCP (cli/dev/forward.ts) and its HTTP routes proxied;
 *   - `/demo-api/*`, `/media/*`: the demo's own small API (publish remixes,
 *     uploads, secrets, the dashboard's JSON, signed media redirects, the
 *     viewer's identity token);
 *   - `/templates/vault/api/*`: the vault template's Express backend;
 *   - everything else: Vite in middleware mode (pages, templates, HMR), or,
 *     with `distDir` (`npm run start:prod`), the production build's files
 *     (lib/static-files.ts).
 *
 * Why Vite in middleware mode and not Vite's own server with `server.proxy`:
 * with our server owning the 'upgrade' event, `/dispatch` and
 * `/peerjs/peerjs` are tunnelled by exact path before anyone else sees them,
 * and Vite's HMR socket (`hmr.server`) only takes upgrades that carry its
 * `vite-hmr` protocol. With `server.proxy` the same routing depends on the
 * proxy's path matching and its WebSocket handling of every upgrade, and the
 * demo's own routes would need a plugin. Both routes work; this one keeps
 * all routing in one readable function.
 *
 * Data (the services' key, secrets and CDN files, published remixes) lives in
 * `dataDir` (default `.platform-data/`), so it survives restarts.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express from 'express';
import { createServer as createViteServer, type ViteDevServer } from 'vite';
import { createCustomizationBuilder, formatProblem } from '../cli/build-customization.js';
import { KEYSTORE_SCHEME } from '../protocol/customization.js';
import { createMemoryStore, createSignalingServer, isPlatformError, Keystore, PlatformError, requestUserToken, VCC_HEADER, type SignalingServer } from '../signaling/index.js';
import { parsePort, PORT_RULE } from '../signaling/port.js';
import { DEMO_PROJECT_ID, DEMO_PROJECT_TOKEN, DEMO_TEMPLATES, MAX_PUBLISH_BYTES, REMIX_ID_PATTERN, type DemoFeed, type PublishedRemix } from './catalog.js';
import { Forwarder } from '../cli/dev/forward.js';
import { sendError, sendJson, statusOf } from './lib/answers.js';
import { readJson, valuesProblem } from './lib/json-body.js';
import { chimeWav, radioWav, treasurePng } from './lib/media.js';
import { PREVIEW_ID_PATTERN, PreviewStore } from './lib/previews.js';
import { RemixStore } from './lib/remix-store.js';
import { ShardMonitor } from './lib/shard-monitor.js';
import { serveStatic } from './lib/static-files.js';
import { uploadLimits, type DemoUploadLimits } from './lib/upload-limits.js';
import { DemoUploads } from './lib/uploads.js';
import { isPublicTokenFromAfar } from './lib/public-token-guard.js';
import { createVaultBackend, TREASURE_PATH } from './templates/vault/backend.js';
import { DEMO_DIR, demoViteConfig, REPO_ROOT, templateEnv } from './vite-config.js';

/** Options of {@link startDemo}. */
export interface DemoOptions {
  /** Port; 0 picks a free one. Default `PORT` or 5173. */
  readonly port?: number;
  /** Interface to listen on. Default `HOST` or 127.0.0.1 (Chromium resolves `localhost` to it, so both names reach the server). */
  readonly host?: string;
  /** Where keys, secrets, CDN files and published remixes are kept. Default `DEMO_DATA_DIR` or `<repo>/.platform-data`. */
  readonly dataDir?: string;
  /** Vite's log level. Default 'info'. */
  readonly logLevel?: 'info' | 'warn' | 'error' | 'silent';
  /**
   * Serve the production build in this folder (`npm run build` writes `demo/dist`) as static
   * files instead of running Vite: no transforms, no HMR. Every other route is the same.
   * Default: Vite's dev server.
   */
  readonly distDir?: string;
  /**
   * Limits of the anonymous uploads (`PUT /demo-api/upload`): quota per client address, uploads
   * at once, disk budget, expiry. Default: the environment (`DEMO_UPLOAD_TTL_SECONDS`…), else
   * DEFAULT_UPLOAD_LIMITS (lib/upload-limits.ts).
   */
  readonly uploads?: Partial<DemoUploadLimits>;
  /**
   * Proxies in front of the demo that append to X-Forwarded-For: the upload quota counts the
   * address the outermost one saw. Default `PLATFORM_TRUST_PROXY` or 0 (the socket's address).
   */
  readonly trustProxy?: number;
}

/** A running demo. */
export interface DemoServer {
  /** Host pages: `http://localhost:PORT`. */
  readonly url: string;
  /** Templates: `http://127.0.0.1:PORT` (another origin). */
  readonly templateOrigin: string;
  readonly port: number;
  readonly dataDir: string;
  /** The demo project and its development token. */
  readonly project: { readonly id: string; readonly token: string };
  /** The platform's admin key (a development value): the feed page's backend route vouches for viewers with it. */
  readonly adminKey: string;
  /** Key path of the vault's secret (`platform-keystore://demo/vault-api-key`). */
  readonly vaultKeyPath: string;
  /** The signaling server inside (its own loopback port). */
  readonly signaling: SignalingServer;
  /** `'dev'`: Vite's dev server; `'prod'`: the production build, served statically. */
  readonly mode: 'dev' | 'prod';
  /** Stops everything; idempotent. */
  close(): Promise<void>;
}

/** The secret the vault template's `vault.apiKey` VCC points to. */
const VAULT_SECRET_NAME = 'vault-api-key';
/** The owner of the demo project: their user tokens may upload and store secrets. */
const DEMO_OWNER = 'demo-owner';
/**
 * The platform's admin key, a fixed development value like the project token: the host's backend
 * asks for user tokens with it. Server side only; never use a fixed key in production.
 */
const DEMO_ADMIN_KEY = 'demo-dev-admin-key-change-me';
/** The cookie that keeps which demo guest a browser is (`demo-user-<hex>`). */
const VIEWER_COOKIE = 'demo-viewer';
const VIEWER_ID_PATTERN = /^demo-user-[0-9a-f]{12}$/;
/** How long a demo user token lives: short, as a host's should (createIdentityHandler fetches a new one before it expires). */
const VIEWER_TOKEN_SECONDS = 15 * 60;

/** Starts the demo: the signaling server, the services, Vite and the demo API on one port. */
export async function startDemo(options: DemoOptions = {}): Promise<DemoServer> {
  // Checked before anything starts: `PORT=abc` is told in a sentence, not by listen()'s RangeError.
  const listenPort = options.port ?? parsePort(process.env['PORT'] ?? '5173');
  if (listenPort === null) throw new PlatformError('INVALID_CONFIG', `PORT wants ${PORT_RULE}, got "${process.env['PORT'] ?? ''}"`);
  const dataDir = resolve(options.dataDir ?? process.env['DEMO_DATA_DIR'] ?? join(REPO_ROOT, '.platform-data'));
  const limits = uploadLimits(options.uploads);
  const trustProxy = options.trustProxy ?? Number(process.env['PLATFORM_TRUST_PROXY'] ?? 0);
  if (!(Number.isInteger(trustProxy) && trustProxy >= 0)) throw new PlatformError('INVALID_CONFIG', 'trustProxy (PLATFORM_TRUST_PROXY) is a number of proxies (0: none)');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const distDir = options.distDir === undefined ? null : resolve(options.distDir);
  if (distDir !== null && !existsSync(join(distDir, 'index.html'))) {
    throw new PlatformError('NOT_FOUND', `the demo has no production build in ${distDir}: run npm run build first`);
  }
  // The build has the generated modules inside; the dev server needs them before it serves a page.
  if (distDir === null) await buildTemplateCustomizations();

  const remixes = await RemixStore.open(dataDir);
  const uploads = await DemoUploads.open({
    limits,
    directory: join(dataDir, 'cdn', DEMO_PROJECT_ID, 'uploads'),
    trustProxy,
    cdn: () => ({ url: signaling?.url ?? selfUrl(), projectId: DEMO_PROJECT_ID, projectToken: DEMO_PROJECT_TOKEN }),
    log: (line) => console.error(line),
  });
  const previews = new PreviewStore();
  const httpServer = createHttpServer();
  // Every TCP connection, upgraded ones too (Vite's HMR socket, the tunnels): close() ends them,
  // since httpServer.close() waits for each one a browser tab keeps open, which kept Ctrl-C from stopping the demo.
  const connections = new Set<Socket>();
  httpServer.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  const vite: ViteDevServer | null =
    distDir !== null
      ? null
      : await createViteServer({
          ...demoViteConfig({ logLevel: options.logLevel ?? 'info' }),
          server: { middlewareMode: true, hmr: { server: httpServer } },
          // Known up front: a dependency discovered late makes Vite re-optimize and reload open pages.
          optimizeDeps: {
            entries: ['*.html', 'templates/*/index.html'],
            include: ['comlink', 'idb-keyval', 'lit', 'lit/directives/if-defined.js', 'lit/directives/live.js', 'peerjs'],
          },
        });

  let port = 0;
  /** Set once the signaling server listens; until then every route but Vite's answers 503. */
  let forwarder: Forwarder | null = null;
  let signaling: SignalingServer | null = null;
  let monitor: ShardMonitor | null = null;
  const selfUrl = (): string => `http://127.0.0.1:${port}`;
  const keystore = (): Keystore => new Keystore(DEMO_PROJECT_ID, DEMO_PROJECT_TOKEN, { url: selfUrl() });
  const vaultApp = express();
  vaultApp.disable('x-powered-by');

  const demoApi = async (request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> => {
    const route = `${request.method ?? 'GET'} ${url.pathname}`;
    if (route === 'GET /demo-api/feed') {
      const feed: DemoFeed = { remixes: remixes.list(), templates: DEMO_TEMPLATES };
      return sendJson(response, 200, feed);
    }
    if (route === 'POST /demo-api/remixes') {
      const body = await readJson(request, MAX_PUBLISH_BYTES);
      const template = DEMO_TEMPLATES.find((entry) => entry.id === body['template']);
      if (!template) return sendError(response, 400, 'INVALID_ARGUMENT', 'template must be one of the demo templates');
      const values = body['values'];
      const problem = valuesProblem(values);
      if (problem) return sendError(response, 400, problem.code, problem.message);
      const parent = body['parent'];
      if (parent !== undefined && parent !== null && (typeof parent !== 'string' || !remixes.get(parent))) {
        return sendError(response, 400, 'INVALID_ARGUMENT', 'parent must be a published remix id');
      }
      const title = typeof body['title'] === 'string' && body['title'].trim() !== '' ? body['title'].trim().slice(0, 80) : `${template.title} (remix)`;
      const remix = await remixes.publish({ template: template.id, title, values: values as PublishedRemix['values'], parent: typeof parent === 'string' ? parent : null });
      return sendJson(response, 201, remix);
    }
    const previewMatch = /^PUT \/demo-api\/previews\/([^/]+)$/.exec(route);
    if (previewMatch) {
      // The editor's values in Preview, so the template's backend sees them as it will once published.
      const id = previewMatch[1]!;
      if (!PREVIEW_ID_PATTERN.test(id)) return sendError(response, 400, 'INVALID_ARGUMENT', 'a preview id is preview- and 8 to 40 letters, digits, _ or -');
      const body = await readJson(request, MAX_PUBLISH_BYTES);
      const template = DEMO_TEMPLATES.find((entry) => entry.id === body['template']);
      if (!template) return sendError(response, 400, 'INVALID_ARGUMENT', 'template must be one of the demo templates');
      const problem = valuesProblem(body['values']);
      if (problem) return sendError(response, 400, problem.code, problem.message);
      previews.set(id, { template: template.id, values: body['values'] as PublishedRemix['values'] });
      response.writeHead(204).end();
      return;
    }
    const remixMatch = /^GET \/demo-api\/remixes\/([^/]+)$/.exec(route);
    if (remixMatch) {
      const remix = REMIX_ID_PATTERN.test(remixMatch[1]!) ? remixes.get(remixMatch[1]!) : undefined;
      return remix ? sendJson(response, 200, remix) : sendError(response, 404, 'NOT_FOUND', 'no such remix');
    }
    if (route === 'PUT /demo-api/upload') {
      // The editor's upload function lands here: the file is streamed to the project CDN, within
      // the limits of lib/uploads.ts, and the VCC value is a path on this server that always
      // redirects to a fresh signed URL, until the upload expires.
      return uploads.handle(request, response);
    }
    if (route === 'POST /demo-api/secrets') {
      // The editor's storeSecret function: the secret goes into the keystore; only the key path comes back.
      const { value } = await readJson(request, 16 * 1024);
      if (typeof value !== 'string' || value === '') return sendError(response, 400, 'INVALID_ARGUMENT', 'value must be a non-empty string');
      return sendJson(response, 201, { keyPath: await keystore().storeSecret(value) });
    }
    if (route === 'GET /demo-api/dashboard' && monitor) return sendJson(response, 200, await monitor.snapshot());
    if (route === 'GET /demo-api/identity-token') {
      // The host's backend vouching for its viewer (what a real host does for its logged-in user):
      // here a demo guest, one per browser, kept in a cookie. The admin key stays in this process.
      const known = readCookie(request, VIEWER_COOKIE);
      const userId = known !== undefined && VIEWER_ID_PATTERN.test(known) ? known : `demo-user-${randomBytes(6).toString('hex')}`;
      const token = await requestUserToken({
        adminKey: DEMO_ADMIN_KEY,
        projectId: DEMO_PROJECT_ID,
        userId,
        attributes: { username: guestName(userId) },
        ttlSeconds: VIEWER_TOKEN_SECONDS,
        url: selfUrl(),
      });
      if (userId !== known) response.setHeader('set-cookie', `${VIEWER_COOKIE}=${userId}; Path=/; Max-Age=31536000; HttpOnly; SameSite=Lax`);
      return sendJson(response, 200, { userToken: token.userToken, presumedRole: token.presumedRole, presumedAttributes: token.presumedAttributes, expiresAt: token.expiresAt });
    }
    return sendError(response, 404, 'NOT_FOUND', `no route ${route}`);
  };

  /** `/media/<path>`: a stable URL for a CDN file that redirects to a freshly signed one. */
  const media = async (response: ServerResponse, url: URL): Promise<void> => {
    const path = url.pathname.slice('/media/'.length);
    if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*){0,7}$/.test(path)) return sendError(response, 400, 'INVALID_ARGUMENT', 'not a media path');
    if (await uploads.expired(path)) return sendError(response, 404, 'NOT_FOUND', 'no such upload: uploads are kept for a while only');
    const signed = await keystore().generateSignedUrl(`${selfUrl()}/cdn/${DEMO_PROJECT_ID}/${path}`);
    response.writeHead(302, { location: signed, 'cache-control': 'no-store' });
    response.end();
  };

  const vaultRoute = (request: IncomingMessage, response: ServerResponse, url: URL): void => {
    // The platform forwards a published remix's backend calls with its values, in the signed
    // header VccMiddleware verifies, and so it does for the remix the editor previews. The
    // template says which remix it shows (`?remix=`); a made-up id gets nothing, and a header
    // sent by the browser itself fails verification.
    delete request.headers[VCC_HEADER];
    const remix = url.searchParams.get('remix');
    const published = remix ? ((REMIX_ID_PATTERN.test(remix) ? remixes.get(remix) : undefined) ?? previews.get(remix)) : undefined;
    if (published?.template === 'vault' && signaling) {
      try {
        const header = signaling.signRemixHeaders({
          templateProjectId: DEMO_PROJECT_ID,
          projectId: DEMO_PROJECT_ID,
          projectToken: DEMO_PROJECT_TOKEN,
          values: published.values as never,
        });
        request.headers[VCC_HEADER] = header[VCC_HEADER];
      } catch (error) {
        // A remix the platform will not vouch for (kept in remixes.json from before the publish
        // API refused its names or values) is served as the template: never a throw in this listener.
        console.warn(`platform-kit demo: remix ${remix} is served without its values: ${(error as Error).message}`);
      }
    }
    vaultApp(request as express.Request, response as express.Response, () => sendError(response, 404, 'NOT_FOUND', 'no such vault route'));
  };

  httpServer.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://demo');
    const path = url.pathname;
    const fail = (error: unknown): void => {
      const status = isPlatformError(error) ? statusOf(error.code) : 500;
      if (!response.headersSent) sendError(response, status, isPlatformError(error) ? error.code : 'INTERNAL', (error as Error).message ?? String(error));
      else response.destroy();
    };
    // Host pages may not be shown in a frame (frame-ancestors 'none'): a template's navigate() or present()
    // to a URL that redirects to one would otherwise put the host's own page, same-origin with the host,
    // inside the feed. Templates (and the media they load) stay frameable.
    if (!path.startsWith('/templates/') && !path.startsWith('/media/') && !isSignalingRoute(path)) response.setHeader('content-security-policy', "frame-ancestors 'none'");
    if (isSignalingRoute(path)) {
      if (isPublicTokenFromAfar(request, DEMO_PROJECT_TOKEN, trustProxy))
        sendError(response, 403, 'FORBIDDEN', "the demo's project token is public: its routes answer this machine only");
      else if (forwarder) forwarder.proxy(request, response);
      else sendError(response, 503, 'NOT_CONNECTED', 'the signaling server is starting');
    } else if (!forwarder && (path.startsWith('/demo-api/') || path.startsWith('/media/') || path.startsWith('/templates/vault/api/'))) {
      sendError(response, 503, 'NOT_CONNECTED', 'the demo is starting');
    } else if (path.startsWith('/demo-api/')) {
      demoApi(request, response, url).catch(fail);
    } else if (path.startsWith('/media/')) {
      media(response, url).catch(fail);
    } else if (path.startsWith('/templates/vault/api/')) {
      vaultRoute(request, response, url);
    } else if (vite) {
      vite.middlewares(request, response, () => sendError(response, 404, 'NOT_FOUND', `no page ${path}`));
    } else if (distDir !== null) {
      serveStatic(distDir, request, response, path).catch(fail);
    }
  });
  httpServer.on('upgrade', (request: IncomingMessage, socket, head: Buffer) => {
    const path = new URL(request.url ?? '/', 'http://demo').pathname;
    // Vite's HMR listener (hmr.server) takes the upgrades with its own protocol; these two are the signaling server's.
    if (path === '/dispatch' || path === '/peerjs/peerjs') {
      if (forwarder) forwarder.tunnel(request, socket, head);
      else socket.destroy();
    }
  });

  await new Promise<void>((resolveListen, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(listenPort, options.host ?? process.env['HOST'] ?? '127.0.0.1', () => {
      httpServer.off('error', reject);
      resolveListen();
    });
  });
  port = (httpServer.address() as AddressInfo).port;

  // The signaling server on its embedded defaults: shards in memory (a store we hold, so the
  // dashboard can read it), keystore and CDN in the data folder. Its CDN URL is this port's:
  // signed URLs must point where browsers can reach them.
  const store = createMemoryStore();
  const server = createSignalingServer({
    port: 0,
    host: '127.0.0.1',
    // Browser joins only from the demo's own pages (host pages and templates): a page elsewhere
    // that knows the project id cannot join the demo's shards.
    projects: {
      // The token is public (catalog.ts): backends join with it from this machine only (public-token-guard.ts says why).
      [DEMO_PROJECT_ID]: { token: DEMO_PROJECT_TOKEN, ownerUserId: DEMO_OWNER, allowedOrigins: [selfUrl(), `http://localhost:${port}`], backendJoinsFromLoopbackOnly: true },
    },
    // The forwarder (cli/dev/forward.ts) is one more proxy in front: it appends the client's address.
    trustProxy: trustProxy + 1,
    store,
    dataDir,
    adminKey: DEMO_ADMIN_KEY,
    cdnUrl: `${selfUrl()}/cdn`,
    // The CDN's cap is the demo's: an upload the demo streams in is refused by both or by neither.
    uploadLimits: { maxUploadBytes: limits.maxUploadBytes },
    log: (line) => console.error(line),
  });
  try {
    await server.ready;
  } catch (error) {
    await new Promise<void>((resolveClose) => httpServer.close(() => resolveClose()));
    await vite?.close();
    await uploads.close();
    throw error;
  }
  signaling = server;
  monitor = new ShardMonitor({ store, metrics: () => server.metrics(), projects: [DEMO_PROJECT_ID] });
  const signalingAddress = new URL(server.url);
  forwarder = new Forwarder({ host: signalingAddress.hostname, port: Number(signalingAddress.port) });

  const vaultKeyPath = `${KEYSTORE_SCHEME}${DEMO_PROJECT_ID}/${VAULT_SECRET_NAME}`;
  try {
    vaultApp.use(
      '/templates/vault/api',
      createVaultBackend({
        root: join(DEMO_DIR, 'templates', 'vault'),
        env: { PLATFORM_PROJECT_ID: DEMO_PROJECT_ID, PLATFORM_PROJECT_TOKEN: DEMO_PROJECT_TOKEN, PLATFORM_VCC_PUBLIC_KEY: server.vccPublicKey, PLATFORM_SERVICES_URL: selfUrl() },
        cdnUrl: `${selfUrl()}/cdn`,
      }),
    );
    // Media the templates use, made in code and put on the project CDN (again at every start: cheap, and always the current version).
    const uploader = keystore();
    await uploader.upload(TREASURE_PATH, treasurePng(), 'image/png');
    await uploader.upload('radio/track.wav', radioWav(), 'audio/wav');
    await uploader.upload('greeting/chime.wav', chimeWav(), 'audio/wav');
    // The vault's secret: made once per data folder, kept in the keystore across restarts.
    await uploader.resolveValue(vaultKeyPath).catch(async (error: unknown) => {
      if (!isPlatformError(error) || error.code !== 'NOT_FOUND') throw error;
      await uploader.storeSecret(`vault_${randomBytes(18).toString('base64url')}`, VAULT_SECRET_NAME);
    });
  } catch (error) {
    await closeAll();
    throw error;
  }

  let closing: Promise<void> | null = null;
  async function closeAll(): Promise<void> {
    closing ??= (async () => {
      await monitor?.close();
      forwarder?.close();
      await vite?.close();
      await new Promise<void>((resolveClose) => {
        httpServer.close(() => resolveClose());
        for (const socket of connections) socket.destroy();
      });
      await server.close();
      await store.close();
      await remixes.close();
      await uploads.close();
    })();
    return closing;
  }

  return {
    url: `http://localhost:${port}`,
    templateOrigin: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    project: { id: DEMO_PROJECT_ID, token: DEMO_PROJECT_TOKEN },
    adminKey: DEMO_ADMIN_KEY,
    vaultKeyPath,
    signaling: server,
    mode: distDir === null ? 'dev' : 'prod',
    close: closeAll,
  };
}

/**
 * Builds every template's customization (`.platform/generated/`), so the modules the templates
 * import exist before Vite serves or bundles a page.
 */
export async function buildTemplateCustomizations(): Promise<void> {
  const env = templateEnv();
  for (const template of DEMO_TEMPLATES) {
    // No platform-env.d.ts: the demo's templates share the repository's one TypeScript program,
    // where four templates' typed get() would collide; each reads its generated module itself.
    const result = await createCustomizationBuilder({ root: join(DEMO_DIR, 'templates', template.id), env, envTypes: false }).build();
    for (const problem of result.problems) console.warn(`platform-kit demo (${template.id}): ${formatProblem(problem)}`);
  }
}

/** Routes the signaling server answers: its sockets, its HTTP routes and the platform services. */
function isSignalingRoute(path: string): boolean {
  return (
    path === '/dispatch' ||
    path.startsWith('/peerjs/') ||
    path === '/health' ||
    path === '/metrics' ||
    path === '/info' ||
    path.startsWith('/services/') ||
    path.startsWith('/cdn/')
  );
}

/** The value of cookie `name` of the request, or undefined. */
function readCookie(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** A demo guest's name, the same for the same id: "Guest 1234". */
function guestName(userId: string): string {
  return `Guest ${1000 + (Number.parseInt(userId.slice(-4), 16) % 9000)}`;
}
