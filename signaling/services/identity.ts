/**
 * Short-lived user tokens: JWTs signed with HS256 through jose.
 *
 * One issuer per server: the services routes sign with it and the signaling
 * server verifies `connect({ authorization })` and `identify()` with it, so a
 * token from `POST /services/identity/tokens` identifies a Dispatch client.
 * Claims: `iss: 'platform-kit'`, `aud: <projectId>`, `sub: <userId>`, the
 * key id in the header, `role` ('admin' | 'user' | 'unknown') and `attrs`
 * (username, avatarUrl…).
 *
 * Rotation: the newest key signs; {@link TokenIssuer.rotate} keeps the
 * previous one for verification until the longest token it could have
 * signed has expired, then drops it. Keys given at construction all verify
 * (newest first signs), so a deploy can also rotate by configuration.
 */
import { randomBytes } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { PlatformError } from '../../protocol/errors.js';
import type { IdentityTokenResult } from '../../protocol/link.js';
import { decodeBase64UrlCanonical } from './http.js';

/** One HS256 key and its id. */
export interface TokenKey {
  /** Key id written in the token header (`kid`). */
  readonly kid: string;
  /** At least 32 bytes of secret. */
  readonly secret: string;
}

/** The role a token carries. 'admin' is the project's owner (or its own backend). */
export type TokenRole = IdentityTokenResult['presumedRole'];

/** What a token says about its user. */
export interface UserAttributes {
  readonly username?: string;
  readonly avatarUrl?: string;
  readonly [attribute: string]: string | undefined;
}

/** The verified content of a token. */
export interface VerifiedUser {
  /** The user id (`sub`). */
  readonly id: string;
  readonly role: TokenRole;
  readonly attributes: UserAttributes;
  /** The project the token was issued for (`aud`). */
  readonly projectId: string;
  /** Expiry, ms since the epoch. */
  readonly expiresAt: number;
}

/** Options of {@link TokenIssuer}. */
export interface TokenIssuerOptions {
  /** Keys, newest first: the first signs, all verify. Default: one random key (tokens die with the process). */
  readonly keys?: readonly TokenKey[];
  /** Lifetime of a token when the caller does not ask. Default 900 s (15 minutes). */
  readonly tokenTtlSeconds?: number;
  /** Longest lifetime a caller may ask for; also how long a rotated-out key keeps verifying. Default 3600 s. */
  readonly maxTokenTtlSeconds?: number;
  /** Clock, ms since the epoch. For tests; default Date.now. */
  readonly now?: () => number;
}

/** Issuer name in every token; verification checks it. */
export const TOKEN_ISSUER = 'platform-kit';
/** Default token lifetime: 15 minutes. */
export const DEFAULT_TOKEN_TTL_SECONDS = 900;
const MAX_ATTRIBUTES = 16;
const MAX_ATTRIBUTE_LENGTH = 1024;
const USER_ID = /^[\x21-\x7e]{1,256}$/;

interface HeldKey {
  readonly kid: string;
  readonly key: Uint8Array;
  /** ms since the epoch after which the key no longer verifies; undefined while it may still sign. */
  retireAt: number | undefined;
}

/** Issues and verifies user tokens for the projects of one server. */
export class TokenIssuer {
  readonly #keys: HeldKey[];
  readonly #ttl: number;
  readonly #maxTtl: number;
  readonly #now: () => number;

  constructor(options: TokenIssuerOptions = {}) {
    const keys = options.keys?.length ? options.keys : [{ kid: `k-${randomBytes(4).toString('hex')}`, secret: randomBytes(32).toString('base64url') }];
    this.#keys = keys.map((key) => ({ kid: key.kid, key: checkKey(key), retireAt: undefined }));
    this.#ttl = options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
    this.#maxTtl = options.maxTokenTtlSeconds ?? 3_600;
    this.#now = options.now ?? Date.now;
    if (!(this.#ttl > 0 && this.#ttl <= this.#maxTtl)) {
      throw new PlatformError('INVALID_CONFIG', `tokenTtlSeconds must be in (0, ${this.#maxTtl}]`);
    }
  }

  /** Key id of the key that signs now. */
  get currentKid(): string {
    return this.#keys[0]!.kid;
  }

  /**
   * Makes `key` the signing key. The previous keys keep verifying until every
   * token they could have signed has expired (`maxTokenTtlSeconds` from now).
   */
  rotate(key: TokenKey): void {
    if (this.#keys.some((held) => held.kid === key.kid)) throw new PlatformError('INVALID_ARGUMENT', `key id "${key.kid}" is already in use`);
    const retireAt = this.#now() + this.#maxTtl * 1000;
    for (const held of this.#keys) held.retireAt ??= retireAt;
    this.#keys.unshift({ kid: key.kid, key: checkKey(key), retireAt: undefined });
  }

  /** Signs a token for `user` in `projectId`. */
  async issue(
    projectId: string,
    user: { readonly id: string; readonly role: TokenRole; readonly attributes?: UserAttributes },
    ttlSeconds: number = this.#ttl,
  ): Promise<{ token: string; expiresAt: number }> {
    if (!USER_ID.test(user.id)) throw new PlatformError('INVALID_ARGUMENT', 'a user id is 1 to 256 printable ASCII characters');
    if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0 || ttlSeconds > this.#maxTtl) {
      throw new PlatformError('INVALID_ARGUMENT', `ttlSeconds must be in (0, ${this.#maxTtl}]`);
    }
    const attributes = checkAttributes(user.attributes ?? {});
    this.#dropRetired();
    const signing = this.#keys[0]!;
    const nowSeconds = Math.floor(this.#now() / 1000);
    const exp = nowSeconds + Math.ceil(ttlSeconds);
    const token = await new SignJWT({ role: user.role, attrs: attributes })
      .setProtectedHeader({ alg: 'HS256', kid: signing.kid, typ: 'JWT' })
      .setIssuer(TOKEN_ISSUER)
      .setAudience(projectId)
      .setSubject(user.id)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(exp)
      .setJti(randomBytes(9).toString('base64url'))
      .sign(signing.key);
    return { token, expiresAt: exp * 1000 };
  }

  /**
   * Verifies `token` for `projectId`. Rejects with `TOKEN_EXPIRED` when it
   * expired, `INVALID_TOKEN` for anything else (forged, another project's,
   * an unknown or retired key, malformed).
   */
  async verify(projectId: string, token: string): Promise<VerifiedUser> {
    this.#dropRetired();
    // jose decodes leniently (padding and the unused bits of the last character are ignored),
    // so one genuine token would have many spellings; only the one we issue is accepted.
    if (!isCanonicalCompactJws(token)) throw new PlatformError('INVALID_TOKEN', 'the user token is not valid for this project');
    try {
      const { payload } = await jwtVerify(
        token,
        (header) => {
          const held = this.#keys.find((candidate) => candidate.kid === header.kid);
          if (!held) throw new PlatformError('INVALID_TOKEN', 'the token was signed with an unknown or retired key');
          return held.key;
        },
        { issuer: TOKEN_ISSUER, audience: projectId, algorithms: ['HS256'], currentDate: new Date(this.#now()) },
      );
      const { sub, role, attrs, exp } = payload;
      if (typeof sub !== 'string' || !USER_ID.test(sub)) throw new PlatformError('INVALID_TOKEN', 'the token names no user');
      if (role !== 'admin' && role !== 'user' && role !== 'unknown') throw new PlatformError('INVALID_TOKEN', 'the token carries no role');
      return { id: sub, role, attributes: checkAttributes(attrs ?? {}), projectId, expiresAt: (exp ?? 0) * 1000 };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new PlatformError('TOKEN_EXPIRED', 'the user token has expired');
      if (error instanceof PlatformError && error.code === 'INVALID_TOKEN') throw error;
      throw new PlatformError('INVALID_TOKEN', 'the user token is not valid for this project');
    }
  }

  #dropRetired(): void {
    const now = this.#now();
    for (let index = this.#keys.length - 1; index > 0; index--) {
      const retireAt = this.#keys[index]!.retireAt;
      if (retireAt !== undefined && retireAt <= now) this.#keys.splice(index, 1);
    }
  }
}

/** True when `token` is three segments of canonical unpadded base64url (see decodeBase64UrlCanonical). */
function isCanonicalCompactJws(token: string): boolean {
  const parts = token.split('.');
  return parts.length === 3 && parts.every((part) => part !== '' && decodeBase64UrlCanonical(part) !== undefined);
}

function checkKey(key: TokenKey): Uint8Array {
  if (typeof key.kid !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(key.kid)) throw new PlatformError('INVALID_CONFIG', 'a key id is 1 to 64 of [A-Za-z0-9._-]');
  if (typeof key.secret !== 'string' || Buffer.byteLength(key.secret) < 32) {
    throw new PlatformError('INVALID_CONFIG', `token key "${key.kid}" is shorter than 32 bytes`);
  }
  return new TextEncoder().encode(key.secret);
}

/** Returns `value` as attributes (string values only, bounded), or throws INVALID_ARGUMENT. */
export function checkAttributes(value: unknown): UserAttributes {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PlatformError('INVALID_ARGUMENT', 'attributes must be an object of strings');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_ATTRIBUTES) throw new PlatformError('INVALID_ARGUMENT', `at most ${MAX_ATTRIBUTES} attributes`);
  const attributes: Record<string, string> = {};
  for (const [key, item] of entries) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype' || key.length > 64)
      throw new PlatformError('INVALID_ARGUMENT', `attribute name "${key.slice(0, 64)}" is not allowed`);
    if (typeof item !== 'string' || item.length > MAX_ATTRIBUTE_LENGTH) {
      throw new PlatformError('INVALID_ARGUMENT', `attribute "${key}" must be a string of at most ${MAX_ATTRIBUTE_LENGTH} characters`);
    }
    attributes[key] = item;
  }
  return attributes;
}
