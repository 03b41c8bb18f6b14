/**
 * `FeedSdk`: what a template uses to take part in the feed (spec:
 * customization.md, FeedSdk): tell the feed it has loaded, learn when it is
 * in focus, hand swipes to the feed or keep them, and ask the feed to
 * navigate, present, share or remix.
 *
 * Touch forwarding: a cross-origin iframe's touches never reach the feed
 * page, so after load() this page forwards every touch (start, move, end,
 * cancel; every point) to the host, which follows swipes with them. Moves are
 * coalesced to one per animation frame: a finger on a 120 Hz screen must not
 * flood the link, and the host only needs the latest position per frame.
 *
 * Wheel and keys: for the same reason the wheel and the feed's navigation
 * keys (arrows, Page Up/Down, j/k) over a template never reach the feed, so
 * after load() they are forwarded too. Wheel events are summed and sent at
 * most once per animation frame. A template keeps the wheel or a key for
 * itself by calling preventDefault() in its own listener (the forwarder
 * listens last, in the bubble phase on window); keys typed into an editable
 * element are never forwarded. A forwarded wheel that nothing of the
 * template scrolls is prevented here, so the browser does not chain it to
 * the feed's page (which would scroll under the feed).
 */
import { PlatformError } from '../protocol/errors.js';
import {
  parseFeedInsets,
  type CreateRemixOptions as WireCreateRemixOptions,
  type FeedInsets,
  type ForwardedKeyEvent,
  type ForwardedTouchEvent,
  type ForwardedTouchPoint,
  type ForwardedWheelEvent,
  type HostApi,
} from '../protocol/link.js';
import { addListener, settleCall, type CallErrorHandler } from './call-failures.js';
import { getGuestLink, type GuestLink } from './link.js';

/** Receives the playback state: true when the template is in focus in the feed, false when it leaves. */
export type PlaybackStateHandler = (isPlaying: boolean) => void;

export type { FeedInsets } from '../protocol/link.js';

/** Receives the corner the feed draws over (see {@link FeedSdk.insets}). */
export type InsetsHandler = (insets: FeedInsets) => void;

/** The CSS custom properties FeedSdk sets on the template's root element: the feed's insets, in px. */
export const FEED_INSET_PROPERTIES = { right: '--platform-feed-inset-right', bottom: '--platform-feed-inset-bottom' } as const;

const NO_INSETS: FeedInsets = Object.freeze({ right: 0, bottom: 0 });

/** Options of {@link FeedSdk.createRemix}. */
export interface CreateRemixOptions {
  /** Project to remix; default: the current project. */
  readonly id?: string;
}

/** A coalesced move (or wheel) goes after this long even when no animation frame comes. */
const MOVE_FLUSH_FALLBACK_MS = 20;
/** Longest project id accepted by createRemix (the host checks again). */
const MAX_PROJECT_ID_LENGTH = 256;
/** Longest URL accepted by navigate and present (the host checks again). */
const MAX_URL_LENGTH = 4_096;

/** The page-wide feed state that every FeedSdk shares: one link, one input forwarder, one playback state. */
class GuestFeedState {
  readonly link: GuestLink;
  readonly instances = new Set<Set<PlaybackStateHandler>>();
  /** Every instance's onError listeners: a page has one feed link, so a failure concerns all of them. */
  readonly errorListeners = new Set<Set<CallErrorHandler>>();
  /** Every instance's onInsetsChanged listeners. */
  readonly insetListeners = new Set<Set<InsetsHandler>>();
  isPlaying = false;
  insets: FeedInsets = NO_INSETS;
  #forwarding = false;
  /** The host said it takes no forwarded input (it is an editor, not a feed): forwarding stopped for good. */
  #refused = false;
  #pendingMove: ForwardedTouchEvent | null = null;
  #moveFrame = 0;
  #moveTimer: ReturnType<typeof setTimeout> | undefined;
  #pendingWheel: { deltaX: number; deltaY: number; deltaMode: ForwardedWheelEvent['deltaMode']; timeStamp: number } | null = null;
  #wheelFrame = 0;
  #wheelTimer: ReturnType<typeof setTimeout> | undefined;
  #failureLogged = false;

  constructor(link: GuestLink) {
    this.link = link;
    link.handle('playbackStateChanged', (isPlaying: unknown) => {
      if (typeof isPlaying !== 'boolean') throw new PlatformError('INVALID_ARGUMENT', 'playbackStateChanged needs a boolean');
      this.isPlaying = isPlaying;
      for (const handlers of this.instances) for (const handler of handlers) safely(() => handler(isPlaying));
    });
    link.handle('insetsChanged', (value: unknown) => {
      const insets = parseFeedInsets(value);
      if (!insets) throw new PlatformError('INVALID_ARGUMENT', 'insetsChanged needs { right, bottom }: numbers from 0 to 4096');
      if (insets.right === this.insets.right && insets.bottom === this.insets.bottom) return;
      this.insets = Object.freeze(insets);
      // On the root element, so a template's stylesheet keeps clear with var(--platform-feed-inset-right, 0px).
      if (typeof document !== 'undefined') {
        const style = document.documentElement.style;
        style.setProperty(FEED_INSET_PROPERTIES.right, `${insets.right}px`);
        style.setProperty(FEED_INSET_PROPERTIES.bottom, `${insets.bottom}px`);
      }
      for (const handlers of this.insetListeners) for (const handler of handlers) safely(() => handler(this.insets));
    });
  }

  /** Starts forwarding touches, the wheel and navigation keys (once per page). */
  startForwarding(): void {
    if (this.#forwarding || this.#refused || typeof window === 'undefined') return;
    this.#forwarding = true;
    // Capture phase on window: the feed hears of a touch start before any
    // listener of the template runs, so a requestCancelTouch() called from
    // the template's own touchstart handler reaches the host after the start
    // it cancels (one port, so calls arrive in order).
    const options: AddEventListenerOptions = { capture: true, passive: true };
    window.addEventListener('touchstart', this.#onTouch, options);
    window.addEventListener('touchmove', this.#onTouch, options);
    window.addEventListener('touchend', this.#onTouch, options);
    window.addEventListener('touchcancel', this.#onTouch, options);
    // Bubble phase: the template's own listeners run first, and one that called preventDefault() keeps the event.
    // Not passive: a wheel the feed takes must not also scroll the feed's page (see #onWheel).
    window.addEventListener('wheel', this.#onWheel, { passive: false });
    window.addEventListener('keydown', this.#onKeyDown);
  }

  /**
   * The host is not a feed (an editor answers load() and a forwarded event
   * with UNSUPPORTED): a template written for the feed calls load() there
   * too, and its touches, wheel and keys have nowhere to go. Stops for good,
   * quietly: nothing went wrong.
   */
  refuseForwarding(): void {
    this.#refused = true;
    if (!this.#forwarding) return;
    this.#forwarding = false;
    const options: EventListenerOptions = { capture: true };
    window.removeEventListener('touchstart', this.#onTouch, options);
    window.removeEventListener('touchmove', this.#onTouch, options);
    window.removeEventListener('touchend', this.#onTouch, options);
    window.removeEventListener('touchcancel', this.#onTouch, options);
    window.removeEventListener('wheel', this.#onWheel);
    window.removeEventListener('keydown', this.#onKeyDown);
    if (this.#moveFrame !== 0) cancelAnimationFrame(this.#moveFrame);
    if (this.#wheelFrame !== 0) cancelAnimationFrame(this.#wheelFrame);
    clearTimeout(this.#moveTimer);
    clearTimeout(this.#wheelTimer);
    this.#moveFrame = this.#wheelFrame = 0;
    this.#pendingMove = this.#pendingWheel = null;
  }

  readonly #onWheel = (event: WheelEvent): void => {
    if (this.link.state !== 'linked' || event.defaultPrevented) return;
    // Ctrl + wheel is a zoom (a trackpad pinch reads as one): not a scroll.
    if (event.ctrlKey || event.deltaY === 0) return;
    const deltaMode = event.deltaMode;
    if (deltaMode !== 0 && deltaMode !== 1 && deltaMode !== 2) return;
    // Nothing here scrolls that way: the browser would chain the scroll to the feed's page (a
    // page taller than the window would move under the feed). A scroller of the template keeps it.
    if (!scrollsInside(event)) event.preventDefault();
    const pending = this.#pendingWheel;
    // Deltas of one unit add up; a change of unit sends what was waiting first.
    if (pending && pending.deltaMode !== deltaMode) this.#flushWheel();
    if (this.#pendingWheel) {
      this.#pendingWheel.deltaX += event.deltaX;
      this.#pendingWheel.deltaY += event.deltaY;
      this.#pendingWheel.timeStamp = event.timeStamp;
    } else {
      this.#pendingWheel = { deltaX: event.deltaX, deltaY: event.deltaY, deltaMode, timeStamp: event.timeStamp };
    }
    if (this.#wheelFrame === 0) {
      this.#wheelFrame = requestAnimationFrame(this.#flushWheel);
      // As for touch moves: a throttled frame must not hold the wheel back.
      this.#wheelTimer = setTimeout(this.#flushWheel, MOVE_FLUSH_FALLBACK_MS);
    }
  };

  readonly #flushWheel = (): void => {
    if (this.#wheelFrame !== 0) cancelAnimationFrame(this.#wheelFrame);
    clearTimeout(this.#wheelTimer);
    this.#wheelFrame = 0;
    const wheel = this.#pendingWheel;
    this.#pendingWheel = null;
    if (wheel) this.#forward('wheel', { ...wheel } satisfies ForwardedWheelEvent);
  };

  readonly #onKeyDown = (event: KeyboardEvent): void => {
    if (this.link.state !== 'linked' || event.defaultPrevented || event.isComposing) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (!isForwardedKey(event.key) || isEditable(event)) return;
    this.#forward('key', { key: event.key } satisfies ForwardedKeyEvent);
  };

  readonly #onTouch = (event: TouchEvent): void => {
    if (this.link.state !== 'linked') return;
    const type = TOUCH_TYPES[event.type];
    if (!type) return;
    const forwarded: ForwardedTouchEvent = {
      type,
      touches: points(event.touches),
      changedTouches: points(event.changedTouches),
      timeStamp: event.timeStamp,
    };
    if (type === 'move') {
      // Keep only the latest move per frame; changed points of dropped moves are still in `touches`.
      this.#pendingMove = forwarded;
      if (this.#moveFrame === 0) {
        this.#moveFrame = requestAnimationFrame(this.#flushMove);
        // The browser may throttle a cross-origin frame's animation frames: the move must not wait for the finger to lift.
        this.#moveTimer = setTimeout(this.#flushMove, MOVE_FLUSH_FALLBACK_MS);
      }
      return;
    }
    // A start, end or cancel goes at once, after any move still waiting, so the host sees them in order.
    this.#flushMove();
    this.#send(forwarded);
  };

  readonly #flushMove = (): void => {
    if (this.#moveFrame !== 0) cancelAnimationFrame(this.#moveFrame);
    clearTimeout(this.#moveTimer);
    this.#moveFrame = 0;
    const move = this.#pendingMove;
    this.#pendingMove = null;
    if (move) this.#send(move);
  };

  #send(event: ForwardedTouchEvent): void {
    this.#forward('touch', event);
  }

  #forward<Name extends 'touch' | 'wheel' | 'key'>(name: Name, ...event: Parameters<HostApi[Name]>): void {
    this.link.call(name, ...event).catch((error: unknown) => {
      if (error instanceof PlatformError && error.code === 'UNSUPPORTED') return this.refuseForwarding();
      // A lost event only makes one gesture less smooth; the template is not told, but the first failure is logged.
      if (this.#failureLogged) return;
      this.#failureLogged = true;
      console.debug(`platform-kit: a forwarded ${name} event was not delivered to the feed`, error);
    });
  }
}

const TOUCH_TYPES: { readonly [eventType: string]: ForwardedTouchEvent['type'] } = {
  touchstart: 'start',
  touchmove: 'move',
  touchend: 'end',
  touchcancel: 'cancel',
};

/**
 * The forwarded points, with their screen position too. Why: the feed moves
 * this iframe while it follows the finger, and the browser computes `clientY`
 * against where it last drew the iframe, a frame or more behind, so client
 * coordinates alone make the feed under-follow. Screen coordinates do not
 * depend on where the iframe is.
 */
function points(list: TouchList): ForwardedTouchPoint[] {
  const result: ForwardedTouchPoint[] = [];
  for (let i = 0; i < list.length; i++) {
    const touch = list[i];
    if (touch) result.push({ identifier: touch.identifier, clientX: touch.clientX, clientY: touch.clientY, screenX: touch.screenX, screenY: touch.screenY });
  }
  return result;
}

const FORWARDED_KEYS: ReadonlySet<string> = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'j', 'k'] satisfies ForwardedKeyEvent['key'][]);

function isForwardedKey(key: string): key is ForwardedKeyEvent['key'] {
  return FORWARDED_KEYS.has(key);
}

/** True when the key goes to something that takes text or arrows itself: an input, a textarea, a select, an editable element. */
function isEditable(event: KeyboardEvent): boolean {
  // The innermost target, also inside a shadow root.
  const target = event.composedPath()[0] ?? event.target;
  if (!(target instanceof Element)) return false;
  if (target instanceof HTMLElement && target.isContentEditable) return true;
  return target.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"]), [role="textbox"], [role="slider"], [role="spinbutton"], [role="listbox"], [role="combobox"]') !== null;
}

/** Whether the wheel `event` scrolls something of this page: an element on its path, or the page itself, with room that way. */
function scrollsInside(event: WheelEvent): boolean {
  const down = event.deltaY > 0;
  const hasRoom = (element: Element): boolean =>
    element.scrollHeight > element.clientHeight && (down ? element.scrollTop + element.clientHeight < element.scrollHeight - 1 : element.scrollTop > 0);
  const root = document.scrollingElement;
  for (const target of event.composedPath()) {
    if (!(target instanceof Element) || target === root || target === document.body) continue;
    const overflowY = getComputedStyle(target).overflowY;
    if ((overflowY === 'auto' || overflowY === 'scroll') && hasRoom(target)) return true;
  }
  if (!root) return false;
  // The page scrolls unless its root or body hides or clips its overflow.
  const hidden = (element: Element | null): boolean => element !== null && /hidden|clip/.test(getComputedStyle(element).overflowY);
  return !hidden(document.documentElement) && !hidden(document.body) && hasRoom(root);
}

let sharedState: GuestFeedState | null = null;

/**
 * Feed integration for a template. Set the listeners, then call
 * {@link FeedSdk.load} once the template can be shown. Works standalone:
 * outside a feed every method resolves as a no-op and no listener fires.
 *
 * Every method returns a promise that resolves when the host accepted the
 * request. A refusal (`FORBIDDEN` when the template is not in focus,
 * `RATE_LIMITED`, …) goes to {@link FeedSdk.onError} listeners, and the
 * promise rejects with it too, already handled: a template that ignores the
 * promise never gets an unhandled rejection. Where the call does not apply
 * (load() in the editor) it resolves and does nothing. Malformed arguments
 * throw `INVALID_ARGUMENT` at once, before anything is sent.
 */
export class FeedSdk {
  readonly #state: GuestFeedState;
  readonly #handlers = new Set<PlaybackStateHandler>();
  readonly #errorHandlers = new Set<CallErrorHandler>();
  readonly #insetHandlers = new Set<InsetsHandler>();

  constructor() {
    sharedState ??= new GuestFeedState(getGuestLink());
    this.#state = sharedState;
    this.#state.instances.add(this.#handlers);
    this.#state.errorListeners.add(this.#errorHandlers);
    this.#state.insetListeners.add(this.#insetHandlers);
  }

  /**
   * Tells the feed the template has loaded: the feed stops showing its
   * loading state, starts delivering playback changes and this page starts
   * forwarding its touches, wheel and navigation keys (arrows, Page Up/Down,
   * j/k; not those typed into an editable element or whose default a
   * listener of the template prevented) so they move the feed. Call it once
   * the template can be shown; the feed skips a template that never does.
   */
  load(): Promise<void> {
    const state = this.#state;
    // Forwarding starts at once (a touch right after load() moves the feed); a host that is no feed stops it.
    state.startForwarding();
    const call = state.link.call('load').catch((error: unknown) => {
      if (error instanceof PlatformError && error.code === 'UNSUPPORTED') state.refuseForwarding();
      throw error;
    });
    return this.#settle('load', call);
  }

  /**
   * Listens to the playback state: true when the template comes into focus in
   * the feed, false when it leaves (play and pause audio, video, timers).
   * Returns the function that removes the listener.
   */
  onPlaybackStateChanged(handler: PlaybackStateHandler): () => void {
    return addListener(this.#handlers, handler);
  }

  /** Whether the feed last said this template is playing (false until it says otherwise). Beyond the spec. */
  get isPlaying(): boolean {
    return this.#state.isPlaying;
  }

  /**
   * The corner of this template the feed draws over, in CSS px: its Remix
   * and Share buttons on a narrow feed (on a wide one they stand beside the
   * template, and both are 0). The rectangle `right` wide at the right edge
   * and `bottom` tall at the bottom edge: keep text out of it by padding on
   * the right or at the bottom. The same values are set as the CSS custom
   * properties `--platform-feed-inset-right` and `--platform-feed-inset-bottom`
   * on the root element (unset outside a feed: give a fallback,
   * `var(--platform-feed-inset-right, 0px)`). Known before load() resolves;
   * follows resizes. Beyond the spec.
   */
  get insets(): FeedInsets {
    return this.#state.insets;
  }

  /** Listens to changes of {@link insets} (for a layout CSS cannot do, a canvas say). Returns the remover. Beyond the spec. */
  onInsetsChanged(handler: InsetsHandler): () => void {
    return addListener(this.#insetHandlers, handler);
  }

  /**
   * Takes the current gesture from the feed: the feed stops following it (and
   * settles back), the template owns it. Any time in the touch lifecycle;
   * only the current gesture is affected.
   */
  requestCancelTouch(): Promise<void> {
    return this.#settle('requestCancelTouch', this.#state.link.call('requestCancelTouch'));
  }

  /** Replaces this template in the feed with the content at `url` (http or https, relative to this page), without a browser navigation. */
  navigate(url: string): Promise<void> {
    return this.#settle('navigate', this.#state.link.call('navigate', checkUrl(url, 'navigate')));
  }

  /** Opens the content at `url` (http or https) in a modal sheet from the bottom; from inside a sheet it replaces the sheet's view. */
  present(url: string): Promise<void> {
    return this.#settle('present', this.#state.link.call('present', checkUrl(url, 'present')));
  }

  /** Opens the sharing menu for this template (the system's, or the feed's share sheet). */
  share(): Promise<void> {
    return this.#settle('share', this.#state.link.call('share'));
  }

  /** Asks the host to open the editor for a new remix of project `options.id` (default: this project). */
  createRemix(options: CreateRemixOptions = {}): Promise<void> {
    if (typeof options !== 'object' || options === null) throw new PlatformError('INVALID_ARGUMENT', 'createRemix options must be an object');
    const { id } = options;
    const wire: WireCreateRemixOptions = {};
    if (id !== undefined) {
      if (typeof id !== 'string' || id.length === 0 || id.length > MAX_PROJECT_ID_LENGTH) {
        throw new PlatformError('INVALID_ARGUMENT', `createRemix id must be a non-empty string of at most ${MAX_PROJECT_ID_LENGTH} characters`);
      }
      Object.assign(wire, { id });
    }
    return this.#settle('createRemix', this.#state.link.call('createRemix', wire));
  }

  /**
   * Listens to failures of this page's feed calls (load, requestCancelTouch,
   * navigate, present, share, createRemix), whose promise a template may
   * ignore. Beyond the spec. Without any listener a failure is one console
   * warning, never an unhandled rejection.
   */
  onError(handler: CallErrorHandler): () => void {
    return addListener(this.#errorHandlers, handler);
  }

  /** Removes every listener of this object; other FeedSdk objects keep theirs. */
  dispose(): void {
    this.#handlers.clear();
    this.#errorHandlers.clear();
    this.#insetHandlers.clear();
    this.#state.instances.delete(this.#handlers);
    this.#state.errorListeners.delete(this.#errorHandlers);
    this.#state.insetListeners.delete(this.#insetHandlers);
  }

  #settle(method: string, call: Promise<void>): Promise<void> {
    const state = this.#state;
    return settleCall(method, call, function* () {
      for (const handlers of state.errorListeners) yield* handlers;
    });
  }
}

/**
 * Resolves `url` against this page and allows only http(s): a
 * `javascript:` or `data:` URL must never be handed to a host that frames it.
 * The host checks again; this gives the template a clear error at once.
 */
function checkUrl(url: unknown, method: string): string {
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_URL_LENGTH) {
    throw new PlatformError('INVALID_ARGUMENT', `${method}() needs a URL string of at most ${MAX_URL_LENGTH} characters`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url, typeof location === 'undefined' ? undefined : location.href);
  } catch {
    throw new PlatformError('INVALID_ARGUMENT', `${method}() got a malformed URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new PlatformError('INVALID_ARGUMENT', `${method}() accepts only http(s) URLs, not ${parsed.protocol}`);
  }
  return parsed.toString();
}

/** A throwing template listener must not stop delivery to the others or answer the host with an error. */
function safely(run: () => void): void {
  try {
    run();
  } catch (error) {
    console.error('platform-kit: a listener threw', error);
  }
}
