/**
 * `platformErrorHandler()`: the error middleware a template's backend puts
 * last, so a failed call of the kit (a missing or forged user token, a secret
 * of another project, the services out of reach) answers the template with
 * JSON it can read, `{ error: { name, code, message } }` and the status of its
 * code, instead of the framework's HTML page with a stack trace.
 *
 * Express tells error middleware by its four parameters; Koa, Fastify and
 * plain node:http can call it with `next` omitted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
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
    sendError(res, error, (_message, cause) => log('platform-kit: a backend route failed', cause));
  };
}
