/**
 * The platform services of the signaling server, as plain node:http routes:
 * identity tokens, the keystore (secrets and signed URLs) and the project CDN.
 * `createServicesRouter()` gives a `handle(req, res)` that createSignalingServer
 * (server.ts) mounts beside its own routes (http-routes.ts) (it answers `false` for a route
 * that is not its own); its token issuer is the one the signaling server
 * verifies `connect({ authorization })` and `identify()` tokens with.
 *
 * Credentials always travel in headers, never in a URL (URLs end up in logs,
 * proxies and Referer headers):
 *   - project credentials: `x-platform-project-id: <id>` and
 *     `authorization: Bearer <projectToken>`;
 *   - the owner's user token (editor flows): `x-platform-project-id: <id>`
 *     and `x-platform-user-token: <JWT of the project's owner>`;
 *   - the platform's admin key (a host backend asking for user tokens):
 *     `authorization: Bearer <adminKey>` and `x-platform-project-id: <id>`.
 * Every secret is compared in constant time. An unknown project and a wrong
 * token get the same `UNAUTHORIZED`, so a caller cannot probe project ids.
 *
 * Routes (JSON bodies; errors are `{ error: { name, code, message } }` with
 * the status of the code: 400, 401, 403, 404, 413, 415, 500):
 *
 *   POST /services/identity/tokens      admin key. { userId, attributes?, ttlSeconds? }
 *        → { token, expiresAt, userId, role, attributes }; role is 'admin' for the project's owner.
 *   POST /services/identity/anonymous   project id only; only with `allowAnonymousTokens`.
 *        → { token, expiresAt, userId: 'anonymous:…', role: 'unknown', attributes: {} }
 *   POST /services/identity/backend-token  project credentials → { token, expiresAt } for `backend:<projectId>`.
 *   POST /services/identity/verify      project credentials. { token } → { id, role, attributes, expiresAt }
 *        or 401 INVALID_TOKEN / TOKEN_EXPIRED.
 *   POST /services/keystore/secrets     project credentials or owner token. { value, name? }
 *        → { keyPath: 'platform-keystore://<projectId>/<name>' }
 *   POST /services/keystore/resolve     project credentials. { keyPath } → { value }; another project's
 *        key path → 403 FORBIDDEN, none → 404 NOT_FOUND.
 *   POST /services/keystore/sign        project credentials. { resource, expirySeconds? }
 *        → { url: '<cdnUrl>/signed/<token>', expiresAt }; a resource outside the project's CDN → 403.
 *   PUT  /services/cdn/<path>           project credentials or owner token; `content-type` of the file;
 *        body = the file → 201 { url, path, size, contentType }.
 *   GET  /services/vcc/public-key       → { alg: 'Ed25519', publicKey } (base64url raw key) for VccMiddleware.
 *   GET|HEAD /cdn/signed/<token>        public: the file (Range aware); 403 when tampered or expired
 *        (the body says which); query parameters reach the `transform` hook.
 *   GET|HEAD /cdn/<projectId>/<path>    the permanent URL: project credentials only, never public.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { KEYSTORE_SCHEME } from '../../protocol/customization.js';
import { PlatformError } from '../../protocol/errors.js';
import { CdnStore, type CdnLimits, type CdnTransform } from './cdn.js';
import {
  bearerToken,
  deriveKey,
  headerValue,
  PROJECT_ID_HEADER,
  readJsonBody,
  SAFE_NAME,
  sameSecret,
  sendError,
  sendJson,
  USER_TOKEN_HEADER,
} from './http.js';
import { checkAttributes, TokenIssuer, type TokenKey } from './identity.js';
import { FileSecretStore, SecretVault, type SecretStore } from './secret-store.js';
import { expiryFor, UrlSigner } from './signed-url.js';
import { ed25519KeyPair, signRemixContext, VCC_HEADER, type RemixContext } from './vcc-headers.js';

/** One project the services know: its token and, optionally, its owner's user id. */
export interface ServicesProject {
  readonly token: string;
  /** User id of the owner: their tokens carry role 'admin' and may store secrets and upload. */
  readonly ownerUserId?: string;
}

/** Options of {@link createServicesRouter}. */
export interface ServicesRouterOptions {
  /**
   * Projects by id: a project token, or `{ token, ownerUserId }`. Read on every
   * request, so adding a project to the object takes effect at once.
   */
  readonly projects: { readonly [projectId: string]: string | ServicesProject };
  /** The platform's admin key: a host backend asks for user tokens with it. Without it, no user tokens are issued. */
  readonly adminKey?: string;
  /** Directory of the server's state: the server key, the secret store, the CDN files. */
  readonly dataDir: string;
  /** The 32-byte server key (bytes, or base64/base64url). Default: read from `<dataDir>/server.key`, created there with mode 0600. */
  readonly secretKey?: Uint8Array | string;
  /**
   * Public base URL of the CDN (what signed URLs start with), or a function
   * read on every request (the signaling server knows its URL only once it
   * listens). Default: `http://<Host of the request>/cdn`.
   */
  readonly cdnUrl?: string | (() => string);
  /** Upload limits. */
  readonly limits?: CdnLimits;
  /** Rewrites files for the query parameters of a signed URL (resize, crop…). */
  readonly transform?: CdnTransform;
  /** Issue tokens to anonymous viewers (`/services/identity/anonymous`). Default false. */
  readonly allowAnonymousTokens?: boolean;
  /** User token lifetime. Default 900 s. */
  readonly tokenTtlSeconds?: number;
  /** Longest token lifetime a host may ask for. Default 3600 s. */
  readonly maxTokenTtlSeconds?: number;
  /** HS256 token keys, newest first. Default: one key derived from the server key (kid `server-1`). */
  readonly tokenKeys?: readonly TokenKey[];
  /** Where secrets are kept. Default: a {@link FileSecretStore} at `<dataDir>/secrets.json`. Pass a Redis store for many nodes. */
  readonly secretStore?: SecretStore;
  /** Clock for tokens and signed URLs, ms since the epoch. For tests. */
  readonly now?: () => number;
}

/** The mounted services. */
export interface ServicesRouter {
  /** Handles `req` when it is a services or CDN route; resolves false (and touches nothing) otherwise. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** The token issuer: the signaling server verifies `identify()` tokens with it (or with the same keys). */
  readonly tokens: TokenIssuer;
  /** The headers that carry a remix to its template's backend, signed with the server's VCC key. */
  signRemixHeaders(context: RemixContext, options?: { ttlSeconds?: number }): { [VCC_HEADER]: string };
  /** The VCC public key (base64url of the raw Ed25519 key): give it to template backends as `PLATFORM_VCC_PUBLIC_KEY`. */
  readonly vccPublicKey: string;
  /** Closes the secret store (waits for writes in flight). */
  close(): Promise<void>;
}

const JSON_LIMIT_BYTES = 64 * 1024;
const MAX_SECRET_BYTES = 32 * 1024;
/** Reserved: it would shadow the signed route in `/cdn/<projectId>/…`. */
const RESERVED_PROJECT_IDS = new Set(['signed']);

/** Creates the services router; reads or creates the server key and opens the secret store. */
export async function createServicesRouter(options: ServicesRouterOptions): Promise<ServicesRouter> {
  const serverKey = await openServerKey(options.dataDir, options.secretKey);
  const now = options.now ?? Date.now;
  const tokens = new TokenIssuer({
    keys: options.tokenKeys ?? [{ kid: 'server-1', secret: deriveKey(serverKey, 'identity token').toString('base64url') }],
    ...(options.tokenTtlSeconds === undefined ? {} : { tokenTtlSeconds: options.tokenTtlSeconds }),
    ...(options.maxTokenTtlSeconds === undefined ? {} : { maxTokenTtlSeconds: options.maxTokenTtlSeconds }),
    now,
  });
  const store = options.secretStore ?? (await FileSecretStore.open(join(options.dataDir, 'secrets.json')));
  const vault = new SecretVault(store, deriveKey(serverKey, 'secret vault'));
  const signer = new UrlSigner(deriveKey(serverKey, 'signed url'));
  const cdn = await CdnStore.open(join(options.dataDir, 'cdn'), options.limits);
  const vcc = ed25519KeyPair(deriveKey(serverKey, 'vcc header'));

  function project(projectId: string | undefined): { id: string; token: string; ownerUserId: string | undefined } | undefined {
    if (projectId === undefined || !SAFE_NAME.test(projectId) || RESERVED_PROJECT_IDS.has(projectId)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(options.projects, projectId)) return undefined;
    const entry = options.projects[projectId];
    if (entry === undefined) return undefined;
    return typeof entry === 'string' ? { id: projectId, token: entry, ownerUserId: undefined } : { id: projectId, token: entry.token, ownerUserId: entry.ownerUserId };
  }

  /** The project of valid project credentials; UNAUTHORIZED otherwise. */
  function projectCredentials(req: IncomingMessage): string {
    const found = project(headerValue(req, PROJECT_ID_HEADER));
    const token = bearerToken(req);
    // Compare even when the project is unknown, so both failures take the same time.
    const ok = sameSecret(token ?? '', found?.token ?? randomBytes(16).toString('hex'));
    if (!found || token === undefined || !ok) throw new PlatformError('UNAUTHORIZED', `valid project credentials are required (${PROJECT_ID_HEADER} and authorization: Bearer <projectToken>)`);
    return found.id;
  }

  /** Project credentials, or the owner's user token for the project (editor flows). */
  async function projectOrOwner(req: IncomingMessage): Promise<string> {
    const userToken = headerValue(req, USER_TOKEN_HEADER);
    if (userToken === undefined) return projectCredentials(req);
    const found = project(headerValue(req, PROJECT_ID_HEADER));
    if (!found) throw new PlatformError('UNAUTHORIZED', 'unknown project');
    const user = await tokens.verify(found.id, userToken);
    if (found.ownerUserId === undefined || user.id !== found.ownerUserId) {
      throw new PlatformError('FORBIDDEN', "only the project's owner may do this");
    }
    return found.id;
  }

  function cdnBase(req: IncomingMessage): string {
    const configured = typeof options.cdnUrl === 'function' ? options.cdnUrl() : options.cdnUrl;
    if (configured !== undefined) return configured.replace(/\/+$/, '');
    return `http://${headerValue(req, 'host') ?? 'localhost'}/cdn`;
  }

  const routes: { [route: string]: (req: IncomingMessage, res: ServerResponse) => Promise<void> } = {
    async 'POST /services/identity/tokens'(req, res) {
      const adminKey = options.adminKey;
      const given = bearerToken(req);
      const adminOk = sameSecret(given ?? '', adminKey ?? randomBytes(16).toString('hex'));
      if (adminKey === undefined || given === undefined || !adminOk) throw new PlatformError('UNAUTHORIZED', 'the admin key is required (authorization: Bearer <adminKey>)');
      const found = project(headerValue(req, PROJECT_ID_HEADER));
      if (!found) throw new PlatformError('NOT_FOUND', `unknown project (${PROJECT_ID_HEADER})`);
      const body = await readJsonBody(req, JSON_LIMIT_BYTES);
      const userId = body['userId'];
      if (typeof userId !== 'string' || userId.startsWith('anonymous:') || userId.startsWith('backend:')) {
        throw new PlatformError('INVALID_ARGUMENT', 'userId must be a string (the anonymous: and backend: prefixes are reserved)');
      }
      const attributes = checkAttributes(body['attributes'] ?? {});
      const ttl = body['ttlSeconds'];
      if (ttl !== undefined && typeof ttl !== 'number') throw new PlatformError('INVALID_ARGUMENT', 'ttlSeconds must be a number');
      const role = found.ownerUserId !== undefined && found.ownerUserId === userId ? 'admin' : 'user';
      const issued = await tokens.issue(found.id, { id: userId, role, attributes }, ttl);
      sendJson(res, 200, { ...issued, userId, role, attributes });
    },
    async 'POST /services/identity/anonymous'(req, res) {
      const found = project(headerValue(req, PROJECT_ID_HEADER));
      if (!options.allowAnonymousTokens) throw new PlatformError('FORBIDDEN', 'this server issues no anonymous tokens');
      if (!found) throw new PlatformError('NOT_FOUND', `unknown project (${PROJECT_ID_HEADER})`);
      const userId = `anonymous:${randomBytes(12).toString('base64url')}`;
      const issued = await tokens.issue(found.id, { id: userId, role: 'unknown', attributes: {} });
      sendJson(res, 200, { ...issued, userId, role: 'unknown', attributes: {} });
    },
    async 'POST /services/identity/backend-token'(req, res) {
      const projectId = projectCredentials(req);
      sendJson(res, 200, await tokens.issue(projectId, { id: `backend:${projectId}`, role: 'admin', attributes: { username: 'backend' } }));
    },
    async 'POST /services/identity/verify'(req, res) {
      const projectId = projectCredentials(req);
      const { token } = await readJsonBody(req, JSON_LIMIT_BYTES);
      if (typeof token !== 'string') throw new PlatformError('INVALID_ARGUMENT', 'token must be a string');
      const user = await tokens.verify(projectId, token);
      sendJson(res, 200, { id: user.id, role: user.role, attributes: user.attributes, expiresAt: user.expiresAt });
    },
    async 'POST /services/keystore/secrets'(req, res) {
      const projectId = await projectOrOwner(req);
      const body = await readJsonBody(req, JSON_LIMIT_BYTES);
      const { value } = body;
      const name = body['name'] ?? randomBytes(12).toString('base64url');
      if (typeof value !== 'string' || Buffer.byteLength(value) > MAX_SECRET_BYTES) {
        throw new PlatformError('INVALID_ARGUMENT', `value must be a string of at most ${MAX_SECRET_BYTES} bytes`);
      }
      if (typeof name !== 'string' || !SAFE_NAME.test(name)) throw new PlatformError('INVALID_ARGUMENT', 'name must be 1 to 128 of [A-Za-z0-9._-]');
      await vault.put(projectId, name, value);
      sendJson(res, 200, { keyPath: `${KEYSTORE_SCHEME}${projectId}/${name}` });
    },
    async 'POST /services/keystore/resolve'(req, res) {
      const projectId = projectCredentials(req);
      const { keyPath } = await readJsonBody(req, JSON_LIMIT_BYTES);
      const parsed = typeof keyPath === 'string' ? parseKeyPath(keyPath) : undefined;
      if (!parsed) throw new PlatformError('INVALID_ARGUMENT', `keyPath must look like ${KEYSTORE_SCHEME}<projectId>/<name>`);
      // A remix holds its template's key paths: they name another project, and the remix's credentials get nothing.
      if (parsed.projectId !== projectId) throw new PlatformError('FORBIDDEN', 'this key path belongs to another project');
      const value = await vault.get(projectId, parsed.name);
      if (value === undefined) throw new PlatformError('NOT_FOUND', 'no secret at this key path');
      sendJson(res, 200, { value });
    },
    async 'POST /services/keystore/sign'(req, res) {
      const projectId = projectCredentials(req);
      const { resource, expirySeconds } = await readJsonBody(req, JSON_LIMIT_BYTES);
      if (typeof resource !== 'string') throw new PlatformError('INVALID_ARGUMENT', 'resource must be the full URL of a file on the project CDN');
      if (expirySeconds !== undefined && typeof expirySeconds !== 'number') throw new PlatformError('INVALID_ARGUMENT', 'expirySeconds must be a number');
      const base = cdnBase(req);
      const prefix = `${base}/${projectId}/`;
      if (!resource.startsWith(prefix)) throw new PlatformError('FORBIDDEN', `only files of this project's CDN (${prefix}…) can be signed`);
      const rest = resource.slice(prefix.length);
      if (rest.includes('?') || rest.includes('#')) {
        throw new PlatformError('INVALID_ARGUMENT', 'put query parameters on the signed URL, not on the resource');
      }
      const path = cdn.checkPath(rest);
      const expiresAt = Math.floor(now() / 1000) + expiryFor(path, expirySeconds);
      const token = signer.sign({ projectId, path, expiresAt });
      sendJson(res, 200, { url: `${base}/signed/${token}`, expiresAt: expiresAt * 1000 });
    },
    async 'GET /services/vcc/public-key'(_req, res) {
      sendJson(res, 200, { alg: 'Ed25519', publicKey: vcc.publicKeyBase64Url });
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const rawUrl = req.url ?? '/';
    const rawPath = rawUrl.split('?')[0] ?? '/';
    if (!rawPath.startsWith('/services/') && !rawPath.startsWith('/cdn/')) return false;
    try {
      // Checked on the raw path: URL parsing would resolve `..` and `%2e%2e` before we could see them.
      if (/(^|\/)\.\.?(\/|$)|\/\/|\\/.test(rawPath)) throw new PlatformError('INVALID_ARGUMENT', 'the path holds a dot segment, an empty segment or a backslash');
      const method = req.method ?? 'GET';
      const route = routes[`${method} ${rawPath}`];
      if (route) {
        await route(req, res);
      } else if (rawPath.startsWith('/services/cdn/') && method === 'PUT') {
        const projectId = await projectOrOwner(req);
        const path = rawPath.slice('/services/cdn/'.length);
        const stored = await cdn.upload(projectId, path, headerValue(req, 'content-type'), req);
        sendJson(res, 201, { ...stored, url: `${cdnBase(req)}/${projectId}/${path}` });
      } else if (rawPath.startsWith('/cdn/signed/') && (method === 'GET' || method === 'HEAD')) {
        await serveSigned(req, res, rawPath.slice('/cdn/signed/'.length), new URL(rawUrl, 'http://localhost').searchParams);
      } else if (rawPath.startsWith('/cdn/') && (method === 'GET' || method === 'HEAD')) {
        const projectId = projectCredentials(req);
        const [owner, ...rest] = rawPath.slice('/cdn/'.length).split('/');
        if (owner !== projectId) throw new PlatformError('FORBIDDEN', "another project's file");
        await cdn.serve(req, res, projectId, rest.join('/'));
      } else {
        throw new PlatformError('NOT_FOUND', `no route ${method} ${rawPath}`);
      }
    } catch (error) {
      // An upload refused early still has its body coming: drain it so the answer reaches the client.
      if (!req.complete) req.resume();
      sendError(res, error);
    }
    return true;
  }

  async function serveSigned(req: IncomingMessage, res: ServerResponse, token: string, query: URLSearchParams): Promise<void> {
    const checked = signer.check(token, now());
    if (!checked.ok) {
      const message = checked.reason === 'expired'
        ? `platform-kit: this signed URL expired at ${new Date(checked.expiresAt * 1000).toISOString()}`
        : 'platform-kit: this signed URL is not valid';
      const body = JSON.stringify({ error: { name: 'PlatformError', code: checked.reason === 'expired' ? 'TOKEN_EXPIRED' : 'FORBIDDEN', message } });
      res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    const { projectId, path, expiresAt } = checked.resource;
    await cdn.serve(req, res, projectId, path, {
      query,
      ...(options.transform ? { transform: options.transform } : {}),
      maxAgeSeconds: expiresAt - now() / 1000,
    });
  }

  return {
    handle,
    tokens,
    vccPublicKey: vcc.publicKeyBase64Url,
    signRemixHeaders(context, signOptions = {}) {
      return { [VCC_HEADER]: signRemixContext(context, vcc.privateKey, { ...signOptions, nowMs: now() }) };
    },
    async close() {
      if (!options.secretStore) await store.close();
    },
  };
}

/** Splits `platform-keystore://<projectId>/<name>`; undefined when it is not one. */
export function parseKeyPath(keyPath: string): { projectId: string; name: string } | undefined {
  if (!keyPath.startsWith(KEYSTORE_SCHEME)) return undefined;
  const [projectId, name, ...extra] = keyPath.slice(KEYSTORE_SCHEME.length).split('/');
  if (extra.length > 0 || projectId === undefined || name === undefined || !SAFE_NAME.test(projectId) || !SAFE_NAME.test(name)) return undefined;
  return { projectId, name };
}

/**
 * The 32-byte server key every other key is derived from: `given` (bytes, or
 * base64/base64url), else `<dataDir>/server.key`, created there (mode 0600)
 * on first use. Creates `dataDir` (mode 0700) when missing.
 */
export async function openServerKey(dataDir: string, given: Uint8Array | string | undefined): Promise<Uint8Array> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (given !== undefined) {
    const key = typeof given === 'string' ? Buffer.from(given, given.includes('-') || given.includes('_') ? 'base64url' : 'base64') : given;
    if (key.length !== 32) throw new PlatformError('INVALID_CONFIG', 'secretKey must be 32 bytes');
    return key;
  }
  const path = join(dataDir, 'server.key');
  try {
    const file = await open(path, 'wx', 0o600);
    try {
      await file.writeFile(randomBytes(32));
      await file.sync();
    } finally {
      await file.close();
    }
  } catch (error) {
    // EEXIST: a key is already there (or another process made it first): use it.
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
  }
  const key = await readFile(path);
  if (key.length !== 32) throw new PlatformError('INVALID_CONFIG', `${path} is not a 32-byte key (a write was interrupted? delete it only if no secret was stored yet)`);
  return key;
}
