/**
 * Signed CDN URLs: `{cdnUrl}/signed/<token>`.
 *
 * token = base64url(JSON { p: projectId, r: path in the project, e: expiry
 * in seconds since the epoch }) + '.' + base64url(HMAC-SHA256(key, payload)).
 * The MAC covers the resource and the expiry, so changing either (or
 * anything else) makes the token invalid. Query parameters of the signed URL
 * are not covered on purpose: the spec puts resize/crop parameters there, and
 * they reach the resource (the CDN's transform hook), not the signature.
 *
 * The signature is checked before the expiry, so a tampered token never
 * learns whether it would have expired.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { PlatformError } from '../../protocol/errors.js';
import { decodeBase64UrlCanonical } from './http.js';

/** Default validity of a signed video: 1 hour. */
export const VIDEO_EXPIRY_SECONDS = 3_600;
/** Default validity of any other signed resource: 5 minutes. */
export const DEFAULT_EXPIRY_SECONDS = 300;
/** Longest validity a caller may ask for: 7 days. */
export const MAX_EXPIRY_SECONDS = 7 * 24 * 3_600;

/** What a signed URL grants: one file of one project until `expiresAt`. */
export interface SignedResource {
  readonly projectId: string;
  /** Path inside the project's CDN space, e.g. `media/intro.mp4`. */
  readonly path: string;
  /** Seconds since the epoch. */
  readonly expiresAt: number;
}

/** The result of checking a token. */
export type SignedUrlCheck =
  | { readonly ok: true; readonly resource: SignedResource }
  | { readonly ok: false; readonly reason: 'invalid' }
  | { readonly ok: false; readonly reason: 'expired'; readonly expiresAt: number };

/** Signs and checks CDN tokens with one 32-byte key. */
export class UrlSigner {
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length < 32) throw new PlatformError('INVALID_CONFIG', 'the URL signing key must be at least 32 bytes');
    this.#key = Buffer.from(key);
  }

  /** The token for `resource`. */
  sign(resource: SignedResource): string {
    const payload = Buffer.from(JSON.stringify({ p: resource.projectId, r: resource.path, e: resource.expiresAt })).toString('base64url');
    return `${payload}.${this.#mac(payload)}`;
  }

  /** Checks `token` at `nowMs`. */
  check(token: string, nowMs: number = Date.now()): SignedUrlCheck {
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > 4096) return { ok: false, reason: 'invalid' };
    const payload = token.slice(0, dot);
    // Only the canonical spelling of the MAC: with padding, `+/` or other unused trailing bits
    // the same bytes would have many tokens (see decodeBase64UrlCanonical).
    const given = decodeBase64UrlCanonical(token.slice(dot + 1));
    const expected = Buffer.from(this.#mac(payload), 'base64url');
    if (given === undefined || given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return { ok: false, reason: 'invalid' };
    }
    const { p, r, e } = (decoded ?? {}) as { p?: unknown; r?: unknown; e?: unknown };
    if (typeof p !== 'string' || typeof r !== 'string' || typeof e !== 'number') return { ok: false, reason: 'invalid' };
    if (e * 1000 <= nowMs) return { ok: false, reason: 'expired', expiresAt: e };
    return { ok: true, resource: { projectId: p, path: r, expiresAt: e } };
  }

  #mac(payload: string): string {
    return createHmac('sha256', this.#key).update(`platform-kit signed url\n${payload}`).digest('base64url');
  }
}

const VIDEO_EXTENSIONS = new Set(['mp4', 'm4v', 'webm', 'mov', 'ogv', 'm3u8', 'ts', 'mkv']);

/** True for a video file (by extension; HLS playlists and segments count as video). */
export function isVideoPath(path: string): boolean {
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return extension !== undefined && VIDEO_EXTENSIONS.has(extension);
}

/** The validity of a signed URL: `expirySeconds` when given (checked), else 1 hour for videos and 5 minutes for the rest. */
export function expiryFor(path: string, expirySeconds: number | undefined): number {
  if (expirySeconds === undefined) return isVideoPath(path) ? VIDEO_EXPIRY_SECONDS : DEFAULT_EXPIRY_SECONDS;
  if (!Number.isFinite(expirySeconds) || expirySeconds <= 0 || expirySeconds > MAX_EXPIRY_SECONDS) {
    throw new PlatformError('INVALID_ARGUMENT', `expirySeconds must be in (0, ${MAX_EXPIRY_SECONDS}]`);
  }
  return expirySeconds;
}
