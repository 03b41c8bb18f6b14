/**
 * `InputForwarder`: the input of a template's page that belongs to the feed.
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
 *
 * A host that is no feed (the editor) answers with UNSUPPORTED: forwarding
 * stops for good, quietly.
 */
import { PlatformError } from '../protocol/errors.js';
import type { ForwardedKeyEvent, ForwardedTouchEvent, ForwardedTouchPoint, ForwardedWheelEvent, HostApi } from '../protocol/link.js';
import type { GuestLink } from './link.js';

/** A coalesced move (or wheel) goes after this long even when no animation frame comes. */
const MOVE_FLUSH_FALLBACK_MS = 20;

/** Forwards a page's touches, wheel and navigation keys to the feed over `link`. See the module comment. */
export class InputForwarder {
  readonly #link: GuestLink;
  /** Aborts this page's forwarding listeners; null while it does not forward. */
  #listening: AbortController | null = null;
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
    this.#link = link;
  }

  /** Starts forwarding touches, the wheel and navigation keys (once per page). */
  start(): void {
    if (this.#listening || this.#refused || typeof window === 'undefined') return;
    const { signal } = (this.#listening = new AbortController());
    // Capture phase on window: the feed hears of a touch start before any
    // listener of the template runs, so a requestCancelTouch() called from
    // the template's own touchstart handler reaches the host after the start
    // it cancels (one port, so calls arrive in order).
    const options: AddEventListenerOptions = { capture: true, passive: true, signal };
    window.addEventListener('touchstart', this.#onTouch, options);
    window.addEventListener('touchmove', this.#onTouch, options);
    window.addEventListener('touchend', this.#onTouch, options);
    window.addEventListener('touchcancel', this.#onTouch, options);
    // Bubble phase: the template's own listeners run first, and one that called preventDefault() keeps the event.
    // Not passive: a wheel the feed takes must not also scroll the feed's page (see #onWheel).
    window.addEventListener('wheel', this.#onWheel, { passive: false, signal });
    window.addEventListener('keydown', this.#onKeyDown, { signal });
  }

  /**
   * The host is not a feed (an editor answers load() and a forwarded event
   * with UNSUPPORTED): a template written for the feed calls load() there
   * too, and its touches, wheel and keys have nowhere to go. Stops for good,
   * quietly: nothing went wrong.
   */
  refuse(): void {
    this.#refused = true;
    if (!this.#listening) return;
    // Every listener start() added goes with its signal.
    this.#listening.abort();
    this.#listening = null;
    if (this.#moveFrame !== 0) cancelAnimationFrame(this.#moveFrame);
    if (this.#wheelFrame !== 0) cancelAnimationFrame(this.#wheelFrame);
    clearTimeout(this.#moveTimer);
    clearTimeout(this.#wheelTimer);
    this.#moveFrame = this.#wheelFrame = 0;
    this.#pendingMove = this.#pendingWheel = null;
  }

  readonly #onWheel = (event: WheelEvent): void => {
    if (this.#link.state !== 'linked' || event.defaultPrevented) return;
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
    if (this.#link.state !== 'linked' || event.defaultPrevented || event.isComposing) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (!isForwardedKey(event.key) || isEditable(event)) return;
    this.#forward('key', { key: event.key } satisfies ForwardedKeyEvent);
  };

  readonly #onTouch = (event: TouchEvent): void => {
    if (this.#link.state !== 'linked') return;
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
    this.#link.call(name, ...event).catch((error: unknown) => {
      if (error instanceof PlatformError && error.code === 'UNSUPPORTED') return this.refuse();
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
  return (
    target.closest(
      'input, textarea, select, [contenteditable]:not([contenteditable="false"]), [role="textbox"], [role="slider"], [role="spinbutton"], [role="listbox"], [role="combobox"]',
    ) !== null
  );
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
