/**
 * `VccMiddleware`: a template backend's view of the project it serves.
 *
 * For every request it sets
 *   - `res.locals.platform.<scope>.<key>`: the template's built customization,
 *     with an instant remix's values over it;
 *   - `res.locals.PLATFORM_PROJECT_ID` and `res.locals.PLATFORM_PROJECT_TOKEN`:
 *     the remix's credentials for a remix, else the project's own.
 *
 * An instant remix runs the template's own backend: the platform forwards its
 * requests with the header `x-platform-vcc`, signed with the platform's
 * Ed25519 key (signaling/services/vcc-headers.ts). The middleware verifies it
 * with the public key (`PLATFORM_VCC_PUBLIC_KEY`, or the `publicKey` option).
 * A header that is forged, unsigned, expired, meant for another template's
 * backend, malformed or hostile (a scope or key named like a property of
 * `Object.prototype`: `toString`, `hasOwnProperty`, `__proto__`…) is ignored
 * and said once through the `log` option: the request sees the project's own
 * values, as with no header. The middleware fails closed: nothing a header
 * holds makes it throw or leave a rejected promise. The header is removed
 * from the request once read, so later code cannot log the remix's token by
 * accident.
 *
 * `res.locals.platform` and each of its scopes are null-prototype records:
 * read them as usual (`res.locals.platform.card.title`); they have no
 * inherited `toString` or `hasOwnProperty` for a foreign name to land on.
 *
 * It never writes `process.env`: every request gets its own objects, so two
 * remixes served at the same time never see each other's values. That is
 * also why the ordering rule exists: packages that read credentials when they
 * are instantiated (in-app purchases, database, authentication) must be
 * created per request from `res.locals`, after this middleware, e.g.
 *
 * ```ts
 * app.use(VccMiddleware.express);           // first
 * app.use(purchases({ projectId: (res) => res.locals.PLATFORM_PROJECT_ID }));
 * app.use(database(...)); app.use(auth(...));
 * ```
 *
 * Base values: the template's `.platform/customization/*.json`, built once
 * (on the first request) with the same builder as `platform-vcc`, from the
 * template root (`root` option, default `process.cwd()`); the generated
 * files go to a temporary directory, so nothing is written into the
 * template. Pass `customization` to skip the build (a bundled backend).
 *
 * `VccMiddleware.express` is a plain `(req, res, next)` function: Express 4
 * and 5 take it as is, and other frameworks adapt it:
 *
 * ```ts
 * // Fastify (with @fastify/middie): locals live on the raw response.
 * await fastify.register(middie); fastify.use(VccMiddleware.express);
 * fastify.get('/', (request, reply) => reply.send(reply.raw.locals.platform));
 *
 * // Koa
 * app.use((ctx, next) => new Promise((resolve, reject) =>
 *   VccMiddleware.express(ctx.req, ctx.res, (error) => (error ? reject(error) : resolve(next())))));
 * app.use((ctx) => { ctx.body = ctx.res.locals.platform; });
 * ```
 */
import type { KeyObject } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCustomizationBuilder, formatProblem, type Env } from '../cli/build-customization.js';
import type { BuiltCustomization } from '../protocol/customization.js';
import { isPrototypeKey, type PlainData } from '../protocol/data.js';
import type { ValueOverrides } from '../protocol/link.js';
import { parsePublicKey, VCC_HEADER, verifyRemixContext, type RemixContext } from './services/vcc-headers.js';

/** Environment variable holding the platform's VCC public key (PEM, or base64url of the raw Ed25519 key). */
export const VCC_PUBLIC_KEY_ENV = 'PLATFORM_VCC_PUBLIC_KEY';

/** `res.locals` as the middleware leaves it. */
export interface PlatformLocals {
  /** Values by scope and key: the template's, with the remix's over them. */
  platform: { [scope: string]: { [key: string]: PlainData } };
  PLATFORM_PROJECT_ID: string | undefined;
  PLATFORM_PROJECT_TOKEN: string | undefined;
  /** True when this request carries a verified instant remix. */
  PLATFORM_IS_REMIX: boolean;
}

/** A plain Node middleware: Express 4 and 5 take it as is. */
export type NodeMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** Options of {@link createVccMiddleware}. */
export interface VccMiddlewareOptions {
  /** The template's built customization. Default: built once from `root`. */
  readonly customization?: BuiltCustomization;
  /** Template root holding `.platform/customization`. Default `process.cwd()` at the first request. */
  readonly root?: string;
  /** The platform's VCC public key. Default `PLATFORM_VCC_PUBLIC_KEY`; without one, remix headers are ignored. */
  readonly publicKey?: string | KeyObject;
  /** Environment to read (never written). Default `process.env`. */
  readonly env?: Env;
  /** Clock, ms since the epoch. For tests. */
  readonly now?: () => number;
  /**
   * Where an ignored remix header, and the build's problems and warnings (a
   * value that does not fit its type: served as the file holds it), are
   * reported, one line each. Default `console.warn`.
   */
  readonly log?: (line: string) => void;
}

/** Creates a middleware with explicit options. */
export function createVccMiddleware(options: VccMiddlewareOptions = {}): NodeMiddleware {
  let base: Promise<BuiltCustomization> | undefined;
  let key: KeyObject | null | undefined;

  const publicKey = (env: Env): KeyObject | null => {
    if (key !== undefined) return key;
    const given = options.publicKey ?? env[VCC_PUBLIC_KEY_ENV];
    // A missing key is a normal setup (no remixes); a broken one is a configuration error, said once.
    try {
      key = given === undefined || given === '' ? null : parsePublicKey(given);
    } catch (error) {
      console.error(`platform-kit: VccMiddleware ignores remix headers: ${(error as Error).message}`);
      key = null;
    }
    return key;
  };

  const given = options.log ?? ((line: string) => console.warn(line));
  const log = (line: string): void => {
    try {
      given(line);
    } catch (error) {
      // A logger that throws must not turn an ignored header into a failed request or an unhandled rejection.
      console.error('platform-kit: VccMiddleware: the log option threw', error);
    }
  };

  /** The verified remix of `header`, or null; an ignored header is said once. Never throws. */
  const remixOf = (header: string | string[] | undefined, env: Env): RemixContext | null => {
    if (header === undefined) return null;
    const ownProjectId = env['PLATFORM_PROJECT_ID'];
    const verifier = publicKey(env);
    // Without a key or an own project id no remix is served at all (a normal setup): nothing to report.
    if (!verifier || !ownProjectId) return null;
    const remix = typeof header === 'string' ? verifyRemixContext(header, verifier, ownProjectId, (options.now ?? Date.now)()) : null;
    if (remix === null)
      log(
        `platform-kit: VccMiddleware ignored an ${VCC_HEADER} header (forged, expired, meant for another backend, malformed or with a forbidden name); the request goes on with the project's own values`,
      );
    return remix;
  };

  return (req, res, next) => {
    const env = options.env ?? process.env;
    base ??= options.customization ? Promise.resolve(options.customization) : buildOnce(options.root ?? process.cwd(), env, log);
    base
      .then(
        (customization) => {
          const header = req.headers[VCC_HEADER];
          delete req.headers[VCC_HEADER];
          let remix: RemixContext | null;
          let platform: PlatformLocals['platform'];
          try {
            remix = remixOf(header, env);
            platform = mergeValues(customization, remix?.values ?? {}, remix ? remix.projectId : env['PLATFORM_PROJECT_ID']);
          } catch (error) {
            // Fail closed: whatever went wrong with the remix, the request is served as if it had no header.
            log(`platform-kit: VccMiddleware ignored an ${VCC_HEADER} header: ${(error as Error).message}`);
            remix = null;
            platform = mergeValues(customization, {}, env['PLATFORM_PROJECT_ID']);
          }
          const locals: PlatformLocals = {
            platform,
            PLATFORM_PROJECT_ID: remix ? remix.projectId : env['PLATFORM_PROJECT_ID'],
            PLATFORM_PROJECT_TOKEN: remix ? remix.projectToken : env['PLATFORM_PROJECT_TOKEN'],
            PLATFORM_IS_REMIX: remix !== null,
          };
          const target = res as ServerResponse & { locals?: Record<string, unknown> };
          target.locals ??= {};
          Object.assign(target.locals, locals);
          next();
        },
        (error: unknown) => {
          // A failed build is retried by the next request instead of failing every request forever.
          base = undefined;
          next(error);
        },
      )
      // next() runs the application's handlers; what they throw is theirs, but never an unhandled rejection here.
      .catch((error: unknown) => log(`platform-kit: VccMiddleware: a handler after it threw: ${(error as Error)?.message ?? String(error)}`));
  };
}

/**
 * The template's values with `overrides` over them, scope by scope, in fresh
 * null-prototype records (never shared between requests). Why null-prototype:
 * with `merged[scope] ??= {}` on a plain object, a scope named `toString` or
 * `hasOwnProperty` finds the built-in function and writes onto it, where every
 * later request (and every object of the process) would see the values.
 */
function mergeValues(customization: BuiltCustomization, overrides: ValueOverrides, projectId: string | undefined): PlatformLocals['platform'] {
  const merged = record<{ [key: string]: PlainData }>();
  for (const [scope, values] of Object.entries(customization.values)) {
    const target = record<PlainData>();
    for (const [key, value] of Object.entries(values)) target[key] = structuredClone(value);
    merged[scope] = target;
  }
  for (const [scope, values] of Object.entries(overrides)) {
    // Predefined scopes are the platform's own: a remix cannot rewrite its metadata.
    if (isPrototypeKey(scope) || scope === 'metadata') continue;
    const target = (merged[scope] ??= record<PlainData>());
    for (const [key, value] of Object.entries(values)) if (!isPrototypeKey(key)) target[key] = structuredClone(value);
  }
  const metadata = (merged['metadata'] ??= record<PlainData>());
  metadata['projectId'] = projectId ?? '';
  return merged;
}

/** An empty null-prototype record. */
function record<T>(): { [key: string]: T } {
  return Object.create(null) as { [key: string]: T };
}

async function buildOnce(root: string, env: Env, log: (line: string) => void): Promise<BuiltCustomization> {
  const outDir = await mkdtemp(join(tmpdir(), 'platform-vcc-middleware-'));
  try {
    // Reads the template, writes only into its own temporary folder: a backend leaves the template's files alone (no platform-env.d.ts).
    const result = await createCustomizationBuilder({ root, outDir, env, envTypes: false }).build();
    for (const problem of result.problems) log(`platform-kit: VccMiddleware: ${formatProblem(problem)}`);
    // A value that does not fit its type is served as the file holds it (the original did): said once, here.
    for (const warning of result.warnings) log(`platform-kit: VccMiddleware: warning: ${formatProblem(warning)}`);
    return result.customization;
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

let defaultMiddleware: NodeMiddleware | undefined;

/**
 * The middleware of the spec: `app.use(VccMiddleware.express)`. Configured
 * from the environment and the working directory at its first request;
 * `VccMiddleware.create(options)` makes one with explicit options.
 */
export const VccMiddleware: { readonly express: NodeMiddleware; readonly create: (options?: VccMiddlewareOptions) => NodeMiddleware } = Object.freeze({
  express: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
    defaultMiddleware ??= createVccMiddleware();
    defaultMiddleware(req, res, next);
  },
  create: createVccMiddleware,
});
