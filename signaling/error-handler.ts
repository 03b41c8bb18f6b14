/**
 * `platformErrorHandler()`: the error middleware a template's backend puts
 * last, so a failed call of the kit (a missing or forged user token, a secret
 * of another project, the services out of reach) answers the template with
 * JSON it can read, `{ error: { name, code, message } }` and the status of its
 * code, instead of the framework's HTML page with a stack trace. The
 * framework's own errors about a request (a body that is not JSON, too large)
 * keep their 4xx status, with a code.
 *
 * Express tells error middleware by its four parameters; Koa, Fastify and
 * plain node:http can call it with `next` omitted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPlatformError, PlatformError, type ErrorCode } from '../protocol/errors.js';
import { sendError } from './services/http.js';

/** Options of {@link platformErrorHandler}. */
export interface PlatformErrorHandlerOptions {
  /** Where an error that is not a PlatformError is logged (its details never reach the client). Default console.error. */
  readonly log?: (message: string, error: unknown) => void;
}

/** An error middleware: `app.use(platformErrorHandler())` after the routes. */
export type ErrorMiddleware = (error: unknown, req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

export function platformErrorHandler(options: PlatformErrorHandlerOptions = {}): ErrorMiddleware {
  const log = options.log ?? ((message, error) => console.error(message, error));
  // Four named parameters: Express counts them to know an error handler.
  return function platformErrorMiddleware(error: unknown, _req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void {
    // Too late for an answer of our own: the framework ends the response.
    if (res.headersSent && next) return next(error);
    sendError(res, clientError(error) ?? error, (_message, cause) => log('platform-kit: a backend route failed', cause));
  };
}

/** The codes of the 4xx statuses a framework's own errors carry; any other 4xx is INVALID_ARGUMENT. */
const CLIENT_ERROR_CODES: Readonly<Record<number, ErrorCode>> = {
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED',
  429: 'RATE_LIMITED',
};

/**
 * A framework's error about the request itself (body-parser's malformed JSON,
 * body too large, unknown charset: http-errors with a 4xx `status` and
 * `expose`, meant for the client) as the PlatformError of its status; null for
 * anything else. Without this a client's bad body answered 500 INTERNAL and was
 * logged as a failure of the backend, once per request an attacker sends.
 */
function clientError(error: unknown): PlatformError | null {
  if (typeof error !== 'object' || error === null || isPlatformError(error)) return null;
  const { status, statusCode, expose, message } = error as { status?: unknown; statusCode?: unknown; expose?: unknown; message?: unknown };
  const httpStatus = typeof status === 'number' ? status : statusCode;
  if (expose !== true || typeof httpStatus !== 'number' || httpStatus < 400 || httpStatus > 499) return null;
  return new PlatformError(CLIENT_ERROR_CODES[httpStatus] ?? 'INVALID_ARGUMENT', `the request was refused: ${typeof message === 'string' ? message : httpStatus}`);
}
