/**
 * The host's side of `Platform.identity.getToken()`.
 *
 * The host page never holds the platform's admin key: `fetchToken` asks the
 * host's own backend, which vouches for its logged-in user with the admin key
 * (`requestUserToken` of platform-kit/signaling) and returns the result.
 * This helper checks that result before it crosses into the template, so a
 * broken backend answer becomes a coded error instead of garbage.
 *
 * ```ts
 * const getIdentityToken = createIdentityHandler({
 *   fetchToken: () => fetch('/api/platform-token', { credentials: 'include' }).then((r) => r.json()),
 * });
 * new TemplateFrame({ src, handlers: { getIdentityToken } });
 * ```
 */
import { PlatformError } from '../protocol/errors.js';
import type { IdentityTokenResult } from '../protocol/link.js';
import { parseIdentityTokenResult } from '../protocol/identity.js';

/**
 * What answers a template's `Platform.identity.getToken()` on an element
 * (`<platform-editor>`'s and `<platform-feed>`'s `getIdentityToken`):
 * typically {@link createIdentityHandler}'s result.
 */
export type GetIdentityToken = () => Promise<IdentityTokenResult> | IdentityTokenResult;

/** Options of {@link createIdentityHandler}. */
export interface IdentityHandlerOptions {
  /** Gets a token for the current viewer from the host's backend. */
  readonly fetchToken: () => Promise<IdentityTokenResult>;
  /**
   * Reuse a token until this long before its `exp` claim. Default 60000.
   * Set 0 to fetch on every call.
   */
  readonly reuseUntilExpiryMs?: number;
}

/** A `getIdentityToken` handler for TemplateFrame's `handlers`. */
export function createIdentityHandler(options: IdentityHandlerOptions): () => Promise<IdentityTokenResult> {
  const margin = options.reuseUntilExpiryMs ?? 60_000;
  let cached: { result: IdentityTokenResult; expiresAt: number } | null = null;
  let inFlight: Promise<IdentityTokenResult> | null = null;
  return async () => {
    if (cached && margin > 0 && cached.expiresAt - margin > Date.now()) return cached.result;
    // Frames that ask at the same time share one backend round trip.
    inFlight ??= (async () => {
      let raw: unknown;
      try {
        raw = await options.fetchToken();
      } catch (error) {
        throw new PlatformError('UNAUTHORIZED', `the host could not get an identity token: ${(error as Error)?.message ?? String(error)}`);
      }
      const result = parseIdentityTokenResult(raw);
      if (!result) throw new PlatformError('INTERNAL', "the host's backend answered with something that is not an identity token");
      cached = { result, expiresAt: expiryOf(result.userToken) };
      return result;
    })().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}

/** The `exp` of a JWT in ms (unverified: only used to decide when to fetch again), or 0. */
function expiryOf(token: string): number {
  try {
    const payload = token.split('.')[1] ?? '';
    const json = atob(
      payload
        .replace(/-/g, '+')
        .replace(/_/g, '/')
        .padEnd(Math.ceil(payload.length / 4) * 4, '='),
    );
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : 0;
  } catch {
    return 0;
  }
}
