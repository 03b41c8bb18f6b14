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
 *
 * The routes themselves are in routes.ts (one function per group), who a
 * request speaks for in credentials.ts, the server key in server-key.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PlatformError } from '../../protocol/errors.js';
import { CdnStore, type CdnLimits, type CdnTransform } from './cdn.js';
import { ServicesCredentials, type ServicesProject } from './credentials.js';
import { deriveKey, headerValue, sendError } from './http.js';
import { TokenIssuer, type TokenKey } from './identity.js';
import { cdnRoute, identityRoutes, keystoreRoutes, vccRoutes, type Routes, type ServicesParts } from './routes.js';
import { FileSecretStore, SecretVault, type SecretStore } from './secret-store.js';
import { openServerKey } from './server-key.js';
import { UrlSigner } from './signed-url.js';
import { ed25519KeyPair, signRemixContext, VCC_HEADER, type RemixContext } from './vcc-headers.js';

export type { ServicesProject } from './credentials.js';

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
  /** Where a route's failure (not a coded refusal) is logged, one line each. Default console.error. */
  readonly log?: (line: string) => void;
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
  const parts: ServicesParts = {
    credentials: new ServicesCredentials(options.projects, tokens),
    tokens,
    vault: new SecretVault(store, deriveKey(serverKey, 'secret vault')),
    signer: new UrlSigner(deriveKey(serverKey, 'signed url')),
    cdn: await CdnStore.open(join(options.dataDir, 'cdn'), options.limits),
    vcc: ed25519KeyPair(deriveKey(serverKey, 'vcc header')),
    adminKey: options.adminKey,
    allowAnonymousTokens: Boolean(options.allowAnonymousTokens),
    transform: options.transform,
    now,
    cdnBase(req) {
      const configured = typeof options.cdnUrl === 'function' ? options.cdnUrl() : options.cdnUrl;
      if (configured !== undefined) return configured.replace(/\/+$/, '');
      return `http://${headerValue(req, 'host') ?? 'localhost'}/cdn`;
    },
  };
  const routes: Routes = { ...identityRoutes(parts), ...keystoreRoutes(parts), ...vccRoutes(parts) };
  const log = options.log;
  const logFailure = log ? (message: string, error: unknown) => log(`${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`) : undefined;
  return {
    handle: (req, res) => handle(parts, routes, req, res, logFailure),
    tokens,
    vccPublicKey: parts.vcc.publicKeyBase64Url,
    signRemixHeaders(context, signOptions = {}) {
      return { [VCC_HEADER]: signRemixContext(context, parts.vcc.privateKey, { ...signOptions, nowMs: now() }) };
    },
    async close() {
      if (!options.secretStore) await store.close();
    },
  };
}

/** Answers a services or CDN request (false, touching nothing, for any other path); every failure is an error answer. */
async function handle(parts: ServicesParts, routes: Routes, req: IncomingMessage, res: ServerResponse, log?: (message: string, error: unknown) => void): Promise<boolean> {
  const rawUrl = req.url ?? '/';
  const rawPath = rawUrl.split('?')[0] ?? '/';
  if (!rawPath.startsWith('/services/') && !rawPath.startsWith('/cdn/')) return false;
  try {
    // Checked on the raw path: URL parsing would resolve `..` and `%2e%2e` before we could see them.
    if (/(^|\/)\.\.?(\/|$)|\/\/|\\/.test(rawPath)) throw new PlatformError('INVALID_ARGUMENT', 'the path holds a dot segment, an empty segment or a backslash');
    const method = req.method ?? 'GET';
    const route = routes[`${method} ${rawPath}`];
    if (route) await route(req, res);
    else if (!(await cdnRoute(parts, req, res, method, rawPath, rawUrl))) throw new PlatformError('NOT_FOUND', `no route ${method} ${rawPath}`);
  } catch (error) {
    // The client hung up (a download dropped, a body cut off): nobody to answer, and no failure
    // of the server to log, however often a client does it. (The response's socket: a refused
    // upload's request is destroyed and lets go of it, yet its answer still goes out.)
    if (res.socket?.destroyed === true) return true;
    // An upload refused early still has its body coming: drain it so the answer reaches the client.
    if (!req.complete) req.resume();
    sendError(res, error, log);
  }
  return true;
}
