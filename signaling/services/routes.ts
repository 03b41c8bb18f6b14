/**
 * The services' routes, one function per group: identity tokens, the
 * keystore, the VCC key (exact `METHOD /path` routes), and the CDN (routes
 * under a prefix: uploads, signed URLs, permanent URLs). router.ts lists them
 * all with their bodies and answers, and dispatches to these.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KEYSTORE_SCHEME } from '../../protocol/customization.js';
import { PlatformError } from '../../protocol/errors.js';
import type { CdnStore, CdnTransform } from './cdn.js';
import type { ServicesCredentials } from './credentials.js';
import { bearerToken, headerValue, PROJECT_ID_HEADER, readJsonBody, SAFE_NAME, sameSecret, sendJson } from './http.js';
import { checkAttributes, type TokenIssuer } from './identity.js';
import type { SecretVault } from './secret-store.js';
import { expiryFor, type UrlSigner } from './signed-url.js';
import type { ed25519KeyPair } from './vcc-headers.js';

const JSON_LIMIT_BYTES = 64 * 1024;
const MAX_SECRET_BYTES = 32 * 1024;

/** What the routes share: made once by createServicesRouter. */
export interface ServicesParts {
  readonly credentials: ServicesCredentials;
  readonly tokens: TokenIssuer;
  readonly vault: SecretVault;
  readonly signer: UrlSigner;
  readonly cdn: CdnStore;
  readonly vcc: ReturnType<typeof ed25519KeyPair>;
  /** The platform's admin key, when the server has one. */
  readonly adminKey: string | undefined;
  readonly allowAnonymousTokens: boolean;
  readonly transform: CdnTransform | undefined;
  /** Clock for tokens and signed URLs, ms since the epoch. */
  readonly now: () => number;
  /** The CDN's public base URL for this request, without a trailing slash. */
  cdnBase(req: IncomingMessage): string;
}

/** A route's handler: it answers, or throws a PlatformError that the router answers. */
export type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void>;
/** Routes by `METHOD /path`. */
export type Routes = { readonly [route: string]: Route };

/** `/services/identity/…`: user tokens (admin key), anonymous and backend tokens, verification. */
export function identityRoutes(parts: ServicesParts): Routes {
  const { credentials, tokens } = parts;
  return {
    async 'POST /services/identity/tokens'(req, res) {
      const adminKey = parts.adminKey;
      const given = bearerToken(req);
      const adminOk = sameSecret(given ?? '', adminKey ?? randomBytes(16).toString('hex'));
      if (adminKey === undefined || given === undefined || !adminOk) throw new PlatformError('UNAUTHORIZED', 'the admin key is required (authorization: Bearer <adminKey>)');
      const found = credentials.projectOf(req);
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
      const found = credentials.projectOf(req);
      if (!parts.allowAnonymousTokens) throw new PlatformError('FORBIDDEN', 'this server issues no anonymous tokens');
      if (!found) throw new PlatformError('NOT_FOUND', `unknown project (${PROJECT_ID_HEADER})`);
      const userId = `anonymous:${randomBytes(12).toString('base64url')}`;
      const issued = await tokens.issue(found.id, { id: userId, role: 'unknown', attributes: {} });
      sendJson(res, 200, { ...issued, userId, role: 'unknown', attributes: {} });
    },
    async 'POST /services/identity/backend-token'(req, res) {
      const projectId = credentials.projectCredentials(req);
      sendJson(res, 200, await tokens.issue(projectId, { id: `backend:${projectId}`, role: 'admin', attributes: { username: 'backend' } }));
    },
    async 'POST /services/identity/verify'(req, res) {
      const projectId = credentials.projectCredentials(req);
      const { token } = await readJsonBody(req, JSON_LIMIT_BYTES);
      if (typeof token !== 'string') throw new PlatformError('INVALID_ARGUMENT', 'token must be a string');
      const user = await tokens.verify(projectId, token);
      sendJson(res, 200, { id: user.id, role: user.role, attributes: user.attributes, expiresAt: user.expiresAt });
    },
  };
}

/** `/services/keystore/…`: storing and resolving secrets, signing CDN URLs. */
export function keystoreRoutes(parts: ServicesParts): Routes {
  const { credentials, vault } = parts;
  return {
    async 'POST /services/keystore/secrets'(req, res) {
      const projectId = await credentials.projectOrOwner(req);
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
      const projectId = credentials.projectCredentials(req);
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
      const projectId = credentials.projectCredentials(req);
      const { resource, expirySeconds } = await readJsonBody(req, JSON_LIMIT_BYTES);
      if (typeof resource !== 'string') throw new PlatformError('INVALID_ARGUMENT', 'resource must be the full URL of a file on the project CDN');
      if (expirySeconds !== undefined && typeof expirySeconds !== 'number') throw new PlatformError('INVALID_ARGUMENT', 'expirySeconds must be a number');
      const base = parts.cdnBase(req);
      const prefix = `${base}/${projectId}/`;
      if (!resource.startsWith(prefix)) throw new PlatformError('FORBIDDEN', `only files of this project's CDN (${prefix}…) can be signed`);
      const rest = resource.slice(prefix.length);
      if (rest.includes('?') || rest.includes('#')) {
        throw new PlatformError('INVALID_ARGUMENT', 'put query parameters on the signed URL, not on the resource');
      }
      const path = parts.cdn.checkPath(rest);
      const expiresAt = Math.floor(parts.now() / 1000) + expiryFor(path, expirySeconds);
      const token = parts.signer.sign({ projectId, path, expiresAt });
      sendJson(res, 200, { url: `${base}/signed/${token}`, expiresAt: expiresAt * 1000 });
    },
  };
}

/** `GET /services/vcc/public-key`: the key template backends check VCC headers with. */
export function vccRoutes(parts: ServicesParts): Routes {
  return {
    async 'GET /services/vcc/public-key'(_req, res) {
      sendJson(res, 200, { alg: 'Ed25519', publicKey: parts.vcc.publicKeyBase64Url });
    },
  };
}

/**
 * The CDN's routes, by prefix: `PUT /services/cdn/<path>` (upload), `GET|HEAD
 * /cdn/signed/<token>` (public, signed) and `GET|HEAD /cdn/<projectId>/<path>`
 * (project credentials). Resolves false when `rawPath` is none of them.
 */
export async function cdnRoute(parts: ServicesParts, req: IncomingMessage, res: ServerResponse, method: string, rawPath: string, rawUrl: string): Promise<boolean> {
  if (rawPath.startsWith('/services/cdn/') && method === 'PUT') {
    const projectId = await parts.credentials.projectOrOwner(req);
    const path = rawPath.slice('/services/cdn/'.length);
    const stored = await parts.cdn.upload(projectId, path, headerValue(req, 'content-type'), req);
    sendJson(res, 201, { ...stored, url: `${parts.cdnBase(req)}/${projectId}/${path}` });
  } else if (rawPath.startsWith('/cdn/signed/') && (method === 'GET' || method === 'HEAD')) {
    await serveSigned(parts, req, res, rawPath.slice('/cdn/signed/'.length), new URL(rawUrl, 'http://localhost').searchParams);
  } else if (rawPath.startsWith('/cdn/') && (method === 'GET' || method === 'HEAD')) {
    const projectId = parts.credentials.projectCredentials(req);
    const [owner, ...rest] = rawPath.slice('/cdn/'.length).split('/');
    if (owner !== projectId) throw new PlatformError('FORBIDDEN', "another project's file");
    await parts.cdn.serve(req, res, projectId, rest.join('/'));
  } else {
    return false;
  }
  return true;
}

/** A signed URL: the file, or 403 saying whether the URL expired or is not valid. */
async function serveSigned(parts: ServicesParts, req: IncomingMessage, res: ServerResponse, token: string, query: URLSearchParams): Promise<void> {
  const checked = parts.signer.check(token, parts.now());
  if (!checked.ok) {
    const message =
      checked.reason === 'expired' ? `platform-kit: this signed URL expired at ${new Date(checked.expiresAt * 1000).toISOString()}` : 'platform-kit: this signed URL is not valid';
    const body = JSON.stringify({ error: { name: 'PlatformError', code: checked.reason === 'expired' ? 'TOKEN_EXPIRED' : 'FORBIDDEN', message } });
    res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  const { projectId, path, expiresAt } = checked.resource;
  await parts.cdn.serve(req, res, projectId, path, {
    query,
    ...(parts.transform ? { transform: parts.transform } : {}),
    maxAgeSeconds: expiresAt - parts.now() / 1000,
  });
}

/** Splits `platform-keystore://<projectId>/<name>`; undefined when it is not one. */
export function parseKeyPath(keyPath: string): { projectId: string; name: string } | undefined {
  if (!keyPath.startsWith(KEYSTORE_SCHEME)) return undefined;
  const [projectId, name, ...extra] = keyPath.slice(KEYSTORE_SCHEME.length).split('/');
  if (extra.length > 0 || projectId === undefined || name === undefined || !SAFE_NAME.test(projectId) || !SAFE_NAME.test(name)) return undefined;
  return { projectId, name };
}
