/**
 * `PlatformBackend.Identity`: user tokens on the server side.
 *
 * - `getToken()` gives the backend its own short-lived token (user
 *   `backend:<projectId>`, role 'admin'), e.g. for `Dispatch.identify()`.
 * - `resolveUserFromToken(token)` asks the platform who a token a browser
 *   sent belongs to; a bad token rejects with INVALID_TOKEN, an expired one
 *   with TOKEN_EXPIRED. Never trust `presumedRole` from a browser: resolve.
 *
 * {@link requestUserToken} is for the host's backend (editor or feed): it
 * vouches for its logged-in user with the platform's admin key and gets the
 * token that `Platform.identity.getToken()` hands to the template.
 */
import { PlatformError } from '../protocol/errors.js';
import type { IdentityTokenResult } from '../protocol/link.js';
import { stringField } from './keystore.js';
import { callServices, projectHeaders, resolveProjectCredentials, resolveServicesUrl } from './services-client.js';
import type { TokenRole, UserAttributes } from './services/identity.js';

export type { TokenRole, UserAttributes } from './services/identity.js';

/** A user a token was verified for. */
export interface ResolvedUser {
  /** The user id the platform verified. */
  readonly id: string;
  /** 'admin' for the project's owner (and its own backend), 'user', or 'unknown' for anonymous viewers. */
  readonly role: TokenRole;
  readonly attributes: UserAttributes;
}

/** Options of {@link Identity}: like Dispatch's, explicit credentials win over `res.locals`, which wins over the environment. */
export interface IdentityOptions {
  readonly projectId?: string;
  readonly projectToken?: string;
  /** A response that went through VccMiddleware: its `locals` carry the (remix's) credentials. */
  readonly res?: { readonly locals?: Readonly<Record<string, unknown>> };
  /** Base URL of the platform services. Default `PLATFORM_SERVICES_URL`, else `PLATFORM_DISPATCH_URL`. */
  readonly url?: string;
  /** Timeout of one call. Default 10000. */
  readonly timeoutMs?: number;
}

/** User tokens for a project's backend. */
export class Identity {
  /** The project this client acts for. */
  readonly projectId: string;
  readonly #token: string;
  readonly #url: string;
  readonly #timeoutMs: number | undefined;

  constructor(options: IdentityOptions = {}) {
    const locals = options.res?.locals;
    const fromLocals = (name: string): string | undefined => (typeof locals?.[name] === 'string' ? locals[name] : undefined);
    const credentials = resolveProjectCredentials(
      options.projectId ?? fromLocals('PLATFORM_PROJECT_ID'),
      options.projectToken ?? fromLocals('PLATFORM_PROJECT_TOKEN'),
      'new PlatformBackend.Identity()',
    );
    this.projectId = credentials.projectId;
    this.#token = credentials.projectToken;
    this.#url = resolveServicesUrl(options.url);
    this.#timeoutMs = options.timeoutMs;
  }

  /** A short-lived token for this backend itself. */
  async getToken(): Promise<{ token: string }> {
    return { token: stringField(await this.#call('/services/identity/backend-token', {}), 'token') };
  }

  /** Who `token` belongs to; rejects with INVALID_TOKEN (forged, another project's) or TOKEN_EXPIRED. */
  async resolveUserFromToken(token: string): Promise<ResolvedUser> {
    if (typeof token !== 'string' || token === '') throw new PlatformError('INVALID_TOKEN', 'no token given');
    const body = await this.#call('/services/identity/verify', { token });
    const role = body['role'];
    if (role !== 'admin' && role !== 'user' && role !== 'unknown') throw new PlatformError('INTERNAL', 'the platform answered without a role');
    return { id: stringField(body, 'id'), role, attributes: (body['attributes'] ?? {}) as UserAttributes };
  }

  #call(path: string, json: Record<string, unknown>): Promise<Record<string, unknown>> {
    return callServices(this.#url, path, {
      headers: projectHeaders(this.projectId, this.#token),
      json,
      ...(this.#timeoutMs === undefined ? {} : { timeoutMs: this.#timeoutMs }),
    });
  }
}

/** Options of {@link requestUserToken}. */
export interface RequestUserTokenOptions {
  /** The platform's admin key. Server side only: never ship it to a browser. */
  readonly adminKey: string;
  /** The project the template belongs to. */
  readonly projectId: string;
  /** The user the host vouches for. */
  readonly userId: string;
  /** Shown to the template as presumedAttributes (username, avatarUrl…). */
  readonly attributes?: UserAttributes;
  /** Token lifetime; default the server's (15 minutes). */
  readonly ttlSeconds?: number;
  /** Base URL of the platform services. Default `PLATFORM_SERVICES_URL`, else `PLATFORM_DISPATCH_URL`. */
  readonly url?: string;
}

/**
 * For the host's backend: a user token for `userId`, in the shape
 * `Platform.identity.getToken()` resolves (plus its expiry).
 */
export async function requestUserToken(options: RequestUserTokenOptions): Promise<IdentityTokenResult & { readonly expiresAt: number }> {
  const body = await callServices(resolveServicesUrl(options.url), '/services/identity/tokens', {
    headers: { 'x-platform-project-id': options.projectId, authorization: `Bearer ${options.adminKey}` },
    json: { userId: options.userId, attributes: options.attributes ?? {}, ...(options.ttlSeconds === undefined ? {} : { ttlSeconds: options.ttlSeconds }) },
  });
  const role = body['role'];
  return {
    userToken: stringField(body, 'token'),
    presumedRole: role === 'admin' || role === 'user' ? role : 'unknown',
    presumedAttributes: (body['attributes'] ?? {}) as UserAttributes,
    expiresAt: Number(body['expiresAt']),
  };
}
