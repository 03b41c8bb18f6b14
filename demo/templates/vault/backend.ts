/**
 * The vault template's backend: an Express app, as a template author writes
 * one. It runs on the demo server under `/templates/vault/api/`.
 *
 *   GET /templates/vault/api/open  → { label, secret: { length, sha256 }, media: { url, expiresAt }, viewer }
 *
 * - VccMiddleware comes first: every request gets `res.locals.platform` (the
 *   template's values, with a remix's over them when the platform forwarded
 *   one with its signed `x-platform-vcc` header) and the project credentials
 *   in `res.locals` (the remix's, for a remix).
 * - The Keystore is made per request from those credentials: it resolves the
 *   secret VCC (`vault.apiKey` holds a key path, never the secret) and signs
 *   a URL for the treasure on the project CDN. The secret itself never
 *   leaves this process: the template only sees its length and a digest.
 * - Who opens it: a request may carry the viewer's user token
 *   (`x-user-token`, from `Platform.identity.getToken()` in the template);
 *   the backend resolves it with `PlatformBackend.Identity` (never trusting
 *   the presumed attributes the template saw) and answers the viewer's name.
 *   A forged or expired token gets a 401; no token, `viewer: null`.
 */
import { createHash } from 'node:crypto';
import express, { type Router } from 'express';
import { Keystore, PlatformBackend, VccMiddleware, isPlatformError, type PlatformLocals } from '../../../signaling/index.js';

/** Options of {@link createVaultBackend}. */
export interface VaultBackendOptions {
  /** The template root (holds `.platform/customization`). */
  readonly root: string;
  /** What a deployed backend reads from its environment. */
  readonly env: {
    readonly PLATFORM_PROJECT_ID: string;
    readonly PLATFORM_PROJECT_TOKEN: string;
    /** The platform's VCC public key (GET /services/vcc/public-key). */
    readonly PLATFORM_VCC_PUBLIC_KEY: string;
    /** Where the platform services are. */
    readonly PLATFORM_SERVICES_URL: string;
  };
  /** Public base URL of the project CDN (`<services>/cdn`). */
  readonly cdnUrl: string;
}

/** Path of the treasure on the project CDN (uploaded by the demo at start). */
export const TREASURE_PATH = 'vault/treasure.png';
/** How long the signed treasure URL lives. */
export const TREASURE_URL_SECONDS = 120;

/** The vault's routes, to mount at `/templates/vault/api`. */
export function createVaultBackend(options: VaultBackendOptions): Router {
  const router = express.Router();
  // `VccMiddleware.express` reads process.env and the working directory; the
  // demo runs several backends in one process, so it passes the same settings explicitly.
  router.use(VccMiddleware.create({ root: options.root, env: options.env }));
  router.get('/open', async (req, res) => {
    const locals = res.locals as unknown as PlatformLocals;
    const vault = locals.platform['vault'] ?? {};
    try {
      // The viewer, as the platform vouches (a token the platform did not issue for this project is refused).
      const userToken = req.get('x-user-token');
      const user = userToken ? await new PlatformBackend.Identity({ res, url: options.env.PLATFORM_SERVICES_URL }).resolveUserFromToken(userToken) : null;
      const viewer = user ? (typeof user.attributes['username'] === 'string' ? user.attributes['username'] : user.id) : null;
      const keystore = new Keystore(locals.PLATFORM_PROJECT_ID, locals.PLATFORM_PROJECT_TOKEN, { url: options.env.PLATFORM_SERVICES_URL });
      const keyPath = vault['apiKey'];
      if (typeof keyPath !== 'string' || keyPath === '') {
        res.status(409).json({ error: { code: 'NOT_FOUND', message: 'this vault has no secret set' } });
        return;
      }
      const secret = await keystore.resolveValue(keyPath);
      const resource = `${options.cdnUrl}/${keystore.projectId}/${TREASURE_PATH}`;
      const url = await keystore.generateSignedUrl(resource, TREASURE_URL_SECONDS);
      res.set('cache-control', 'no-store').json({
        label: typeof vault['label'] === 'string' ? vault['label'] : '',
        remix: locals.PLATFORM_IS_REMIX,
        secret: { length: secret.length, sha256: createHash('sha256').update(secret).digest('hex').slice(0, 16) },
        media: { url, expiresAt: Date.now() + TREASURE_URL_SECONDS * 1000 },
        viewer,
      });
    } catch (error) {
      const code = isPlatformError(error) ? error.code : 'INTERNAL';
      const status = code === 'INVALID_TOKEN' || code === 'TOKEN_EXPIRED' ? 401 : code === 'FORBIDDEN' ? 403 : code === 'NOT_FOUND' ? 404 : 500;
      res.status(status).json({ error: { code, message: (error as Error).message } });
    }
  });
  return router;
}
