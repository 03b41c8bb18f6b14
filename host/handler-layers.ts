/**
 * The handlers of a TemplateFrame's guest calls, in layers; apart from the frame because which handler answers is its own rule, not the link's.
 *
 * The `handlers` option (or setHandlers) is the base, and each addHandlers()
 * puts a layer over it that answers its own methods and leaves the others to
 * the layers below. So a RemixSession attached to a frame adds the remix
 * methods without removing the owner's (a feed's load and touches, an
 * identity handler). The gates (ready, load) are heard by every layer.
 */
import { PlatformError } from '../protocol/errors.js';
import type { HostApi } from '../protocol/link.js';

/** A guest call that opens a notification gate (see NOTIFICATION_GATES in protocol/link.ts). */
export type Gate = 'ready' | 'load';

/**
 * Handlers of guest → host calls. Arguments arrive unchecked (`unknown`):
 * each handler checks its own. A method without a handler answers `UNSUPPORTED`.
 */
export type HostHandlers = { [Name in Exclude<keyof HostApi, Gate>]?: (...args: unknown[]) => unknown } & {
  /** Called after the frame itself handled ready() (queued remix notifications are already sent). */
  ready?: () => void;
  /** Called after the frame itself handled load() (queued feed notifications are already sent). */
  load?: () => void;
};

/** The base handlers and the layers over them; see the module comment. */
export class HandlerLayers {
  #base: HostHandlers;
  /** Layers of add(), oldest first: the newest that has a method answers it. */
  readonly #layers: HostHandlers[] = [];

  constructor(base: HostHandlers) {
    this.#base = base;
  }

  /** Replaces the base; the layers stay over it. */
  setBase(handlers: HostHandlers): void {
    this.#base = handlers;
  }

  /** Adds a layer over the others; returns the function that removes exactly this layer (idempotent). */
  add(handlers: HostHandlers): () => void {
    // A copy: the layer is what was given now, and the same object added twice is two layers.
    const layer: HostHandlers = { ...handlers };
    this.#layers.push(layer);
    return () => {
      const index = this.#layers.indexOf(layer);
      if (index !== -1) this.#layers.splice(index, 1);
    };
  }

  /** Answers a guest call of `name`: the newest layer's handler that has one, else the base's; none throws `UNSUPPORTED`. */
  dispatch(name: Exclude<keyof HostApi, Gate>, args: unknown[]): unknown {
    const handler = this.#handlerOf(name);
    if (!handler) throw new PlatformError('UNSUPPORTED', `this host does not handle "${name}"`);
    return handler.apply(undefined, args);
  }

  /**
   * Tells every layer the gate opened: each owner may have its own reason to
   * know the guest is ready or loaded. One that throws does not stop the
   * others; the guest's call fails with the first error.
   */
  openGate(gate: Gate): void {
    let failure: { error: unknown } | null = null;
    for (const layer of [this.#base, ...this.#layers]) {
      try {
        layer[gate]?.();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  /** The handler of `name`: the newest layer's that has one, else the base's. */
  #handlerOf<Name extends keyof HostHandlers>(name: Name): HostHandlers[Name] {
    for (let i = this.#layers.length - 1; i >= 0; i--) {
      const handler = this.#layers[i]?.[name];
      if (handler) return handler;
    }
    return this.#base[name];
  }
}
