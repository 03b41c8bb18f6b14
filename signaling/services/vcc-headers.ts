/**
 * The signed header that carries an instant remix to its template's backend.
 *
 * An instant remix runs the template's own backend. The platform, which
 * forwards the remix's requests, adds one header:
 *
 *   x-platform-vcc: v1.<base64url(JSON payload)>.<base64url(Ed25519 signature)>
 *
 * payload = { aud: template projectId, pid: remix projectId, ptk: remix
 * project token, vals: remix values { scope: { key: value } }, iat, exp }.
 *
 * Ed25519, not HMAC: the template's backend holds only the public key, so it
 * can check the header but never produce one, and neither can anyone else.
 * `aud` binds a header to one template backend (a header captured at one
 * backend is refused by another); `exp` bounds replay (default 5 minutes).
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { assertPlainData, DEFAULT_MAX_JSON_DEPTH, isPrototypeKey, jsonDepthWithin, type PlainData } from '../../protocol/data.js';
import { PlatformError } from '../../protocol/errors.js';
import type { ValueOverrides } from '../../protocol/link.js';
import { decodeBase64UrlCanonical } from './http.js';

/** The header name (lower case, as node:http gives it). */
export const VCC_HEADER = 'x-platform-vcc';
/** Longest header value produced or accepted: node's default header limit is 16 KB for all headers. */
export const MAX_VCC_HEADER_BYTES = 12 * 1024;
/** Default validity of a signed header. */
export const DEFAULT_VCC_HEADER_TTL_SECONDS = 300;

/** What the platform vouches for in one request. */
export interface RemixContext {
  /** The template's project: the backend this header is meant for. */
  readonly templateProjectId: string;
  /** The remix's project id. */
  readonly projectId: string;
  /** The remix's project token. */
  readonly projectToken: string;
  /** The remix's values over the template's. */
  readonly values: ValueOverrides;
}

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The Ed25519 key pair of a 32-byte seed (derived from the server key, so only one secret is kept). */
export function ed25519KeyPair(seed: Uint8Array): { privateKey: KeyObject; publicKey: KeyObject; publicKeyBase64Url: string } {
  if (seed.length !== 32) throw new PlatformError('INVALID_CONFIG', 'an Ed25519 seed is 32 bytes');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey);
  const jwk = publicKey.export({ format: 'jwk' });
  return { privateKey, publicKey, publicKeyBase64Url: String(jwk.x) };
}

/** Reads a public key given as PEM (SPKI) or as the base64url of the raw 32-byte Ed25519 key. */
export function parsePublicKey(value: string | KeyObject): KeyObject {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  try {
    if (text.startsWith('-----BEGIN')) return createPublicKey(text);
    if (Buffer.from(text, 'base64url').length === 32) return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: text }, format: 'jwk' });
  } catch (error) {
    throw new PlatformError('INVALID_CONFIG', 'the VCC public key is not a valid Ed25519 key', { cause: error });
  }
  throw new PlatformError('INVALID_CONFIG', 'the VCC public key must be PEM or the base64url of 32 bytes');
}

/**
 * Signs `context` into a header value. Throws PAYLOAD_TOO_LARGE when the
 * values do not fit a header, INVALID_PATH for a scope or key named like a
 * property of `Object.prototype` (`toString`, `hasOwnProperty`, `__proto__`…)
 * and INVALID_VALUE for values that are not plain data or nest too deep: the
 * platform never vouches for what {@link verifyRemixContext} would refuse.
 */
export function signRemixContext(context: RemixContext, privateKey: KeyObject, options: { ttlSeconds?: number; nowMs?: number } = {}): string {
  const problem = valuesProblem(context.values);
  if (problem !== undefined) throw new PlatformError(problem.code, `the remix values cannot be signed: ${problem.message}`);
  const iat = Math.floor((options.nowMs ?? Date.now()) / 1000);
  const payload = {
    aud: context.templateProjectId,
    pid: context.projectId,
    ptk: context.projectToken,
    vals: context.values,
    iat,
    exp: iat + (options.ttlSeconds ?? DEFAULT_VCC_HEADER_TTL_SECONDS),
  };
  const json = JSON.stringify(payload);
  if (!jsonDepthWithin(json, DEFAULT_MAX_JSON_DEPTH)) throw new PlatformError('INVALID_VALUE', `the remix values nest deeper than ${DEFAULT_MAX_JSON_DEPTH} levels`);
  const encoded = Buffer.from(json).toString('base64url');
  const signature = sign(null, Buffer.from(`v1.${encoded}`), privateKey).toString('base64url');
  const header = `v1.${encoded}.${signature}`;
  if (header.length > MAX_VCC_HEADER_BYTES) throw new PlatformError('PAYLOAD_TOO_LARGE', `the remix values make a header of ${header.length} bytes, over ${MAX_VCC_HEADER_BYTES}`);
  return header;
}

/**
 * Checks a header value for the backend of `templateProjectId`. Returns the
 * context, or null for anything not signed by the platform's key (the
 * signature and payload must be canonical base64url: a padded, `+/` or
 * trailing-bit variant of a genuine signature is refused like a forged one),
 * expired, meant for another backend, malformed, nested deeper than
 * {@link DEFAULT_MAX_JSON_DEPTH}, or holding a scope or key named like a
 * property of `Object.prototype`. Never throws. The values come back in
 * null-prototype records.
 */
export function verifyRemixContext(header: string, publicKey: KeyObject, templateProjectId: string, nowMs: number = Date.now()): RemixContext | null {
  if (header.length > MAX_VCC_HEADER_BYTES) return null;
  const parts = header.split('.');
  if (parts.length !== 3 || parts[0] !== 'v1') return null;
  const [, encoded = '', signatureText = ''] = parts;
  try {
    const signature = decodeBase64UrlCanonical(signatureText);
    if (signature === undefined || !verify(null, Buffer.from(`v1.${encoded}`), publicKey, signature)) return null;
    const bytes = decodeBase64UrlCanonical(encoded);
    if (bytes === undefined) return null;
    const text = bytes.toString('utf8');
    if (!jsonDepthWithin(text, DEFAULT_MAX_JSON_DEPTH)) return null;
    const payload: unknown = JSON.parse(text);
    if (typeof payload !== 'object' || payload === null) return null;
    const { aud, pid, ptk, vals, exp } = payload as Record<string, unknown>;
    if (aud !== templateProjectId || typeof pid !== 'string' || typeof ptk !== 'string' || typeof exp !== 'number') return null;
    if (exp * 1000 <= nowMs) return null;
    if (valuesProblem(vals) !== undefined) return null;
    return { templateProjectId: aud, projectId: pid, projectToken: ptk, values: copyValues(vals as ValueOverrides) };
  } catch {
    // A malformed key, signature or payload is the same as no header: the caller falls back.
    return null;
  }
}

/** What is wrong with remix values, or undefined when they are `{ scope: { key: plain data } }` with safe names. */
function valuesProblem(value: unknown): { code: 'INVALID_PATH' | 'INVALID_VALUE'; message: string } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { code: 'INVALID_VALUE', message: 'values must be { scope: { key: value } }' };
  for (const [scope, scopeValues] of Object.entries(value as Record<string, unknown>)) {
    if (isPrototypeKey(scope)) return { code: 'INVALID_PATH', message: `the scope "${scope}" is a name of Object.prototype` };
    if (typeof scopeValues !== 'object' || scopeValues === null || Array.isArray(scopeValues)) {
      return { code: 'INVALID_VALUE', message: `scope "${scope}" must be an object of values` };
    }
    for (const [key, item] of Object.entries(scopeValues as Record<string, unknown>)) {
      if (isPrototypeKey(key)) return { code: 'INVALID_PATH', message: `the key "${scope}.${key}" is a name of Object.prototype` };
      try {
        assertPlainData(item);
      } catch (error) {
        return { code: 'INVALID_VALUE', message: `"${scope}.${key}": ${(error as Error).message}` };
      }
    }
  }
  return undefined;
}

/** The values in null-prototype records: whoever reads or merges them by foreign names never reaches a built-in. */
function copyValues(values: ValueOverrides): ValueOverrides {
  const copy: { [scope: string]: { [key: string]: PlainData } } = Object.create(null) as { [scope: string]: { [key: string]: PlainData } };
  for (const [scope, scopeValues] of Object.entries(values)) {
    const record: { [key: string]: PlainData } = Object.create(null) as { [key: string]: PlainData };
    for (const [key, item] of Object.entries(scopeValues)) record[key] = item;
    copy[scope] = record;
  }
  return copy;
}
