/**
 * `Platform.identity`: who is looking at the template, as the host vouches.
 *
 * `getToken()` asks the host, which asks the platform for a short-lived user
 * token for its logged-in user. The role and attributes are *presumed*: a
 * template may use them to adapt its interface, but a backend must resolve
 * the token (`PlatformBackend.Identity.resolveUserFromToken`) before it
 * trusts anything. Standalone (not embedded) it rejects with NOT_EMBEDDED.
 */
import { PlatformError } from '../protocol/errors.js';
import { parseIdentityTokenResult } from '../protocol/identity.js';
import type { IdentityTokenResult } from '../protocol/link.js';
import { getGuestLink } from './link.js';

export type { IdentityTokenResult } from '../protocol/link.js';

/** The identity part of `Platform`. */
export interface PlatformIdentity {
  /** A user token for the viewer, with the host's presumed role and attributes. */
  getToken(): Promise<IdentityTokenResult>;
}

/** `Platform.identity`. */
export const identity: PlatformIdentity = {
  async getToken() {
    const result: unknown = await getGuestLink().request('getIdentityToken');
    // The host is another origin: check what it sent like any other input.
    const checked = parseIdentityTokenResult(result);
    if (!checked) throw new PlatformError('INVALID_MESSAGE', 'the host answered getToken() with something that is not an identity token');
    return checked;
  },
};
