/**
 * `Platform`: the namespace of the spec (`Platform.dispatch`; `identity`
 * later). No top-level side effects: the client is made on first access, and
 * a template that never imports `Platform` drops this module (and peerjs,
 * which loads only when a mesh starts) from its bundle.
 */
import { BrowserDispatch } from './dispatch/dispatch.js';

let dispatch: BrowserDispatch | undefined;

/** The Platform namespace of a template. */
export const Platform = {
  /** The page's Dispatch client (made on first access). */
  get dispatch(): BrowserDispatch {
    dispatch ??= new BrowserDispatch();
    return dispatch;
  },
};
