/**
 * `Platform`: the namespace of the spec (`Platform.dispatch`,
 * `Platform.identity`). No top-level side effects: the Dispatch client is
 * made on first access, `identity` is a plain object that links to the host
 * only when `getToken()` is called, and a template that never imports
 * `Platform` drops this module (and peerjs, which loads only when a mesh
 * starts) from its bundle.
 */
import { BrowserDispatch } from './dispatch/dispatch.js';
import { identity, type PlatformIdentity } from './identity.js';

let dispatch: BrowserDispatch | undefined;

/** The Platform namespace of a template. */
export const Platform = {
  /** The page's Dispatch client (made on first access). */
  get dispatch(): BrowserDispatch {
    dispatch ??= new BrowserDispatch();
    return dispatch;
  },
  /** Who is viewing, as the host vouches: `await Platform.identity.getToken()` → `{ userToken, presumedRole, presumedAttributes }`. */
  get identity(): PlatformIdentity {
    return identity;
  },
};
