/**
 * `platform-kit/compat/vcc-backend`: what a template backend written for the
 * original SDK imports instead of `@withkoji/vcc` (a bundler alias, or a
 * one-line module): the kit's `VccMiddleware`, which also sets
 * `res.locals.koji`, the original's name for `res.locals.platform` (the same
 * object). Everything else about the middleware is the kit's: signed remix
 * headers, null-prototype records, no writes to `process.env` (the original
 * wrote `KOJI_PROJECT_ID` there; read `res.locals.PLATFORM_PROJECT_ID`).
 */
import type { ServerResponse } from 'node:http';
import { createVccMiddleware, type NodeMiddleware, type PlatformLocals, type VccMiddlewareOptions } from '../vcc-middleware.js';

/** `res.locals` as this middleware leaves it: the kit's, and `koji`. */
export interface OriginalVccLocals extends PlatformLocals {
  /** The same object as `platform`: values by scope and key, the remix's over the template's. */
  koji: PlatformLocals['platform'];
}

/** The kit's middleware with `res.locals.koji` beside `res.locals.platform`. */
export function createOriginalVccMiddleware(options: VccMiddlewareOptions = {}): NodeMiddleware {
  const inner = createVccMiddleware(options);
  return (req, res, next) => {
    inner(req, res, (error?: unknown) => {
      if (error === undefined) {
        const locals = (res as ServerResponse & { locals?: Partial<OriginalVccLocals> }).locals;
        if (locals?.platform) locals.koji = locals.platform;
      }
      next(error);
    });
  };
}

let defaultMiddleware: NodeMiddleware | undefined;

/** `app.use(VccMiddleware)` of the original: configured from the environment and the working directory at its first request. */
export const VccMiddleware: { readonly express: NodeMiddleware; readonly create: (options?: VccMiddlewareOptions) => NodeMiddleware } = Object.freeze({
  express: (req: Parameters<NodeMiddleware>[0], res: Parameters<NodeMiddleware>[1], next: Parameters<NodeMiddleware>[2]) => {
    defaultMiddleware ??= createOriginalVccMiddleware();
    defaultMiddleware(req, res, next);
  },
  create: createOriginalVccMiddleware,
});
