/**
 * `platform-kit/compat/vcc`: what a bundler alias points `@withkoji/vcc` at,
 * so that a template written for the original SDK (1.1.x) builds and runs
 * with no other change. It is `platform-kit/guest`'s `InstantRemixing` and
 * `FeedSdk`, plus exactly what such templates call that the kit names
 * otherwise:
 *
 * - `addListener(handler)`: the original's name for `onValueChanged`;
 * - the default export (`import Koji from '@withkoji/vcc'`): an object whose
 *   `config` holds the built values (`metadata` and `serviceMap` included),
 *   with the original's deprecated methods (`pageLoad`, `on`, `request`,
 *   `pwaPrompt`, `enableConfigDidChange`) as no-ops.
 *
 * The kit's own API is unchanged: these live here only. A backend imports
 * `platform-kit/compat/vcc-backend` instead (its `VccMiddleware` also sets
 * `res.locals.koji`). Browser only; nothing runs on import.
 */
import { clonePlain, type PlainData } from '../../protocol/data.js';
import { FeedSdk } from '../feed-sdk.js';
import { InstantRemixing as KitInstantRemixing, type ValueChangedHandler } from '../instant-remixing.js';
import { getBuiltCustomization } from '../registry.js';

export { FeedSdk };

/** `InstantRemixing` of `platform-kit/guest`, with the original's `addListener`. */
export class InstantRemixing extends KitInstantRemixing {
  /** The original SDK's name for {@link KitInstantRemixing.onValueChanged}; returns the remover as it does. */
  addListener(handler: ValueChangedHandler): () => void {
    return this.onValueChanged(handler);
  }
}

/** The default export of the original `@withkoji/vcc`, as templates use it. */
export interface OriginalVccDefault {
  /** The built values, `{ scope: { key: value } }`, with `metadata` and `serviceMap`. A copy: writing into it changes nothing else. */
  readonly config: { [scope: string]: { [key: string]: PlainData } };
  /** Deprecated in the original; does nothing. */
  pageLoad(): void;
  /** Deprecated in the original; does nothing. */
  on(...args: unknown[]): void;
  /** Deprecated in the original; does nothing. */
  request(...args: unknown[]): void;
  /** Deprecated in the original; does nothing. */
  pwaPrompt(...args: unknown[]): void;
  /** Hot updates of `config` in the original's dev server; does nothing (use `InstantRemixing.onValueChanged`). */
  enableConfigDidChange(): void;
}

const told = new Set<string>();
/** A deprecated call does nothing; said once per name, at debug level (the original warned on every call). */
function deprecated(name: string): () => void {
  return () => {
    if (told.has(name)) return;
    told.add(name);
    console.debug(`platform-kit: Koji.${name}() of the original SDK does nothing here; it can be removed`);
  };
}

/** The copy `config` hands out, per built customization (a hot update makes a new one). */
let cached: { source: object; config: OriginalVccDefault['config'] } | null = null;

const Koji: OriginalVccDefault = Object.freeze({
  get config() {
    const built = getBuiltCustomization();
    // One copy per build: `Koji.config.a === Koji.config.a`, as with the original's static object.
    if (cached?.source !== built) {
      // The predefined scopes are always there, as in the original's config (`Koji.config.metadata.projectId`).
      const values = clonePlain(built.values as PlainData) as OriginalVccDefault['config'];
      cached = { source: built, config: { metadata: {}, serviceMap: {}, ...values } };
    }
    return cached.config;
  },
  pageLoad: deprecated('pageLoad'),
  on: deprecated('on'),
  request: deprecated('request'),
  pwaPrompt: deprecated('pwaPrompt'),
  enableConfigDidChange: deprecated('enableConfigDidChange'),
});

export default Koji;
