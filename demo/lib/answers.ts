/**
 * How the demo's own routes answer: JSON, and errors as `{ error: { name, code, message } }` with
 * the HTTP status of their code (the signaling services answer the same shape).
 */
import type { ServerResponse } from 'node:http';
import type { ErrorCode } from '../../protocol/errors.js';

/** The HTTP status of an error code. */
export function statusOf(code: ErrorCode | string): number {
  switch (code) {
    case 'INVALID_ARGUMENT':
    case 'INVALID_VALUE':
    case 'INVALID_PATH':
    case 'INVALID_MESSAGE':
      return 400;
    case 'UNAUTHORIZED':
      return 401;
    case 'FORBIDDEN':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'CALL_TIMEOUT':
      return 408;
    case 'PAYLOAD_TOO_LARGE':
    case 'VALUE_TOO_LARGE':
      return 413;
    case 'UNSUPPORTED':
      return 415;
    case 'RATE_LIMITED':
      return 429;
    case 'UNAVAILABLE':
    case 'NOT_CONNECTED':
      return 503;
    default:
      return 500;
  }
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
