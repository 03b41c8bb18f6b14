/**
 * Small helpers shared by the service routes: JSON bodies with a size limit,
 * coded errors as HTTP answers, credentials from headers, constant-time
 * comparison and key derivation. Plain node:http, no framework.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_JSON_DEPTH, jsonDepthWithin } from '../../protocol/data.js';
import { isPlatformError, PlatformError, serializeError, type ErrorCode } from '../../protocol/errors.js';

/** Header naming the project a request acts for. */
export const PROJECT_ID_HEADER = 'x-platform-project-id';
/** Header carrying a user token (the owner's, for editor flows). */
export const USER_TOKEN_HEADER = 'x-platform-user-token';

/**
 * HTTP status of every error code: a code added to ERROR_CODES and not here does not compile.
 * 500 for the codes no route answers with (link, customization file and dispatch codes).
 */
const STATUS: { readonly [Code in ErrorCode]: number } = {
  INVALID_ARGUMENT: 400,
  INVALID_MESSAGE: 400,
  INVALID_NAME: 400,
  INVALID_VALUE: 400,
  // The only INVALID_PATH a service route answers: the path collides with what is stored
  // (a directory, or a file where a directory would have to be), so it is a conflict.
  INVALID_PATH: 409,
  UNAUTHORIZED: 401,
  INVALID_TOKEN: 401,
  TOKEN_EXPIRED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  STATE_TOO_LARGE: 413,
  UNSUPPORTED: 415,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  HANDSHAKE_TIMEOUT: 500,
  LOAD_TIMEOUT: 500,
  CALL_TIMEOUT: 500,
  LINK_RESET: 500,
  LINK_CLOSED: 500,
  NOT_EMBEDDED: 500,
  ORIGIN_REFUSED: 500,
  VALUE_TOO_LARGE: 500,
  INVALID_CONFIG: 500,
  NOT_CONNECTED: 500,
  SHARD_FULL: 500,
  TOO_MANY_SHARDS: 500,
  QUEUE_FULL: 500,
  INTERNAL: 500,
};

/** The HTTP status for a coded error. */
export function statusOf(code: ErrorCode): number {
  return STATUS[code];
}

/** Sends a JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}

/** Answers with `{ error: SerializedError }`; an error that is not a PlatformError becomes INTERNAL without its details (logged with `log`). */
export function sendError(res: ServerResponse, error: unknown, log: (message: string, error: unknown) => void = console.error): void {
  if (!isPlatformError(error)) log('platform-kit: service route failed', error);
  const wire = isPlatformError(error) ? serializeError(error) : serializeError(new PlatformError('INTERNAL', 'internal error'));
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, statusOf(wire.code), { error: wire });
}

/**
 * Reads a JSON object body of at most `maxBytes`; PAYLOAD_TOO_LARGE,
 * INVALID_MESSAGE (nested deeper than {@link DEFAULT_MAX_JSON_DEPTH}) or
 * INVALID_ARGUMENT otherwise.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<Record<string, unknown>> {
  const buffer = await readBody(req, maxBytes);
  const text = buffer.toString('utf8');
  // Refused on the text, before JSON.parse: whatever later walks or re-serializes the value
  // recursively (a clone, a check, a log line) then never meets one thousands of levels deep.
  if (!jsonDepthWithin(text, DEFAULT_MAX_JSON_DEPTH)) {
    throw new PlatformError('INVALID_MESSAGE', `the request body nests deeper than ${DEFAULT_MAX_JSON_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PlatformError('INVALID_ARGUMENT', 'the request body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PlatformError('INVALID_ARGUMENT', 'the request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/** Reads a whole body of at most `maxBytes`. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return Promise.reject(new PlatformError('PAYLOAD_TOO_LARGE', `the body is ${declared} bytes, over the limit of ${maxBytes}`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.resume();
        reject(new PlatformError('PAYLOAD_TOO_LARGE', `the body is over the limit of ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The single value of a header, or undefined (a repeated credential header is refused as absent). */
export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The token of `authorization: Bearer <token>`, or undefined. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const value = headerValue(req, 'authorization');
  const match = value === undefined ? null : /^Bearer ([\x21-\x7e]{1,4096})$/.exec(value);
  return match?.[1];
}

/** Constant-time equality of two secrets (lengths are compared through their HMACs, so they leak nothing either). */
export function sameSecret(given: string, expected: string): boolean {
  const key = 'platform-kit compare';
  const a = createHmac('sha256', key).update(given).digest();
  const b = createHmac('sha256', key).update(expected).digest();
  return timingSafeEqual(a, b);
}

/** A 32-byte subkey of the server key for one purpose, so no key is ever used for two things. */
export function deriveKey(serverKey: Uint8Array, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), `platform-kit ${purpose}`, 32));
}

/** Project ids and secret names: letters, digits, `.`, `_`, `-`; no dot-only names. */
export const SAFE_NAME = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,128}$/;

/**
 * The bytes of `text` when it is canonical unpadded base64url (what
 * `Buffer#toString('base64url')` writes), else undefined.
 *
 * Why not `Buffer.from(text, 'base64url')` alone: it takes `=` padding, `+`
 * and `/`, and ignores the unused low bits of the last character, so many
 * texts decode to the same signature. A signature is then not one string, and
 * anything that keys on its text (a replay cache, a log search, a URL cache)
 * can be walked around. Decoding, encoding again and comparing keeps exactly one.
 */
export function decodeBase64UrlCanonical(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}
