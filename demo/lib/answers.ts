/**
 * How the demo's own routes answer: JSON, and errors as `{ error: { name, code, message } }` with
 * the HTTP status of their code (the signaling services answer the same shape).
 */
import type { ServerResponse } from 'node:http';
import { isErrorCode, type ErrorCode } from '../../protocol/errors.js';

/** The HTTP status of every error code: a code added to ERROR_CODES and not here does not compile. */
const STATUS: { readonly [Code in ErrorCode]: number } = {
  INVALID_ARGUMENT: 400,
  INVALID_VALUE: 400,
  INVALID_PATH: 400,
  INVALID_MESSAGE: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CALL_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  STATE_TOO_LARGE: 413,
  VALUE_TOO_LARGE: 413,
  UNSUPPORTED: 415,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  NOT_CONNECTED: 503,
  HANDSHAKE_TIMEOUT: 500,
  LOAD_TIMEOUT: 500,
  LINK_RESET: 500,
  LINK_CLOSED: 500,
  NOT_EMBEDDED: 500,
  ORIGIN_REFUSED: 500,
  METHOD_NOT_ALLOWED: 500,
  INVALID_CONFIG: 500,
  SHARD_FULL: 500,
  TOO_MANY_SHARDS: 500,
  INVALID_NAME: 500,
  INVALID_TOKEN: 500,
  TOKEN_EXPIRED: 500,
  QUEUE_FULL: 500,
  INTERNAL: 500,
};

/** The HTTP status of an error code (500 for a string that is not one). */
export function statusOf(code: ErrorCode | string): number {
  return isErrorCode(code) ? STATUS[code] : 500;
}

/** Answers `body` as JSON, never cached. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** Answers a coded error; the message starts with `platform-kit demo:`. */
export function sendError(response: ServerResponse, status: number, code: string, message: string): void {
  sendJson(response, status, errorBody(code, message));
}

/** The body of a coded error. */
export function errorBody(code: string, message: string): { error: { name: 'PlatformError'; code: string; message: string } } {
  return { error: { name: 'PlatformError', code, message: `platform-kit demo: ${message.replace(/^platform-kit( demo)?: /, '')}` } };
}
