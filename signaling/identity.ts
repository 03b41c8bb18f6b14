/**
 * User tokens (short-lived JWTs, HS256 through jose) and resume tokens.
 *
 * A minimal issuer for now: the server signs `{ sub: userId, aud: projectId }`
 * with the first configured secret and verifies with any of them by key id
 * (`kid`), so a secret can be rotated by adding a new one first and removing
 * the old one after the longest token lifetime. The services issue replaces
 * the issuer; verification stays here.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTHeaderParameters } from 'jose';
import { PlatformError } from '../protocol/errors.js';

/** One signing secret and its key id. */
export interface IdentitySecret {
  /** Key id written in the token header. */
  readonly kid: string;
  /** At least 32 bytes of secret. */
  readonly secret: string;
}

/** Options of the identity part of the server. */
export interface IdentityOptions {
  /**
   * Secrets, newest first: the first signs, all verify. Default: one random
   * secret per process (tokens and resume tokens then die with a restart).
   */
  readonly secrets?: readonly IdentitySecret[];
  /** Lifetime of an issued user token. Default 600 s. */
  readonly tokenTtlSeconds?: number;
  /** Longest lifetime a caller may ask for. Default 3600 s. */
  readonly maxTokenTtlSeconds?: number;
}

const ISSUER = 'platform-kit';

/** Issues and checks user tokens and resume tokens. */
export class Identity {
  readonly #keys: ReadonlyMap<string, Uint8Array>;
  readonly #signing: IdentitySecret & { key: Uint8Array };
  readonly #resumeKey: Buffer;
  readonly #ttl: number;
  readonly #maxTtl: number;

  constructor(options: IdentityOptions = {}) {
    const secrets = options.secrets?.length ? options.secrets : [{ kid: 'ephemeral', secret: randomBytes(32).toString('base64url') }];
    for (const { secret, kid } of secrets) {
      if (Buffer.byteLength(secret) < 32) throw new PlatformError('INVALID_CONFIG', `identity secret "${kid}" is shorter than 32 bytes`);
    }
    const encoder = new TextEncoder();
    this.#keys = new Map(secrets.map(({ kid, secret }) => [kid, encoder.encode(secret)]));
    const first = secrets[0]!;
    this.#signing = { ...first, key: encoder.encode(first.secret) };
    // A separate key for resume tokens, derived so one secret configures both.
    this.#resumeKey = createHmac('sha256', first.secret).update('platform-kit resume token').digest();
    this.#ttl = options.tokenTtlSeconds ?? 600;
    this.#maxTtl = options.maxTokenTtlSeconds ?? 3_600;
  }

  /** Signs a user token for `userId` in `projectId`. */
  async issue(projectId: string, userId: string, ttlSeconds: number = this.#ttl): Promise<{ token: string; expiresAt: number }> {
    if (typeof userId !== 'string' || userId.length === 0 || userId.length > 256) {
      throw new PlatformError('INVALID_ARGUMENT', 'userId must be a string of 1 to 256 characters');
    }
    if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0 || ttlSeconds > this.#maxTtl) {
      throw new PlatformError('INVALID_ARGUMENT', `ttlSeconds must be in (0, ${this.#maxTtl}]`);
    }
    const now = Math.floor(Date.now() / 1000);
    const header: JWTHeaderParameters = { alg: 'HS256', kid: this.#signing.kid, typ: 'JWT' };
    const token = await new SignJWT({})
      .setProtectedHeader(header)
      .setIssuer(ISSUER)
      .setAudience(projectId)
      .setSubject(userId)
      .setIssuedAt(now)
      .setExpirationTime(now + Math.floor(ttlSeconds))
      .sign(this.#signing.key);
    return { token, expiresAt: (now + Math.floor(ttlSeconds)) * 1000 };
  }

  /** The verified user id of `token` for `projectId`; rejects with `INVALID_TOKEN` or `TOKEN_EXPIRED`. */
  async verify(projectId: string, token: string): Promise<string> {
    try {
      const { payload } = await jwtVerify(
        token,
        (header) => {
          const key = header.kid === undefined ? undefined : this.#keys.get(header.kid);
          if (!key) throw new PlatformError('INVALID_TOKEN', 'unknown key id');
          return key;
        },
        { issuer: ISSUER, audience: projectId, algorithms: ['HS256'] },
      );
      if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw new PlatformError('INVALID_TOKEN', 'token names no user');
      return payload.sub;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new PlatformError('TOKEN_EXPIRED', 'the user token has expired');
      if (error instanceof PlatformError) throw error;
      throw new PlatformError('INVALID_TOKEN', 'the user token is not valid for this project');
    }
  }

  /**
   * A resume token binds a client id to its project and shard. It carries
   * the boot id of the server that issued it, so a server can tell a client
   * whose grace period ran out (same boot) from one whose server restarted
   * (other boot, state lost: it may take its old id back).
   */
  resumeToken(bootId: string, projectId: string, shardName: string, clientId: string): string {
    const mac = createHmac('sha256', this.#resumeKey).update(`${bootId}\n${projectId}\n${shardName}\n${clientId}`).digest('base64url');
    return `${bootId}.${shardName}.${mac}`;
  }

  /** Checks a resume token; returns its boot id and shard, or null when forged or malformed. */
  checkResumeToken(token: string, projectId: string, clientId: string): { bootId: string; shardName: string } | null {
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const [bootId, shardName, mac] = parts as [string, string, string];
    const expected = Buffer.from(this.resumeToken(bootId, projectId, shardName, clientId).split('.')[2]!);
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? { bootId, shardName } : null;
  }
}

/** Constant-time string comparison for secrets. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
