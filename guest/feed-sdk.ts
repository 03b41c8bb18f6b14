/**
 * `FeedSdk`: what a template uses to take part in the feed (spec:
 * customization.md, FeedSdk): tell the feed it has loaded, learn when it is
 * in focus, hand swipes to the feed or keep them, and ask the feed to
 * navigate, present, share or remix. After load() the page's touches, wheel
 * and navigation keys go to the feed (input-forwarder.ts).
 */
import { PlatformError } from '../protocol/errors.js';
import { parseFeedInsets, type CreateRemixOptions as WireCreateRemixOptions, type FeedInsets } from '../protocol/link.js';
import { addListener, settleCall, type CallErrorHandler } from './call-failures.js';
import { InputForwarder } from './input-forwarder.js';
import { getGuestLink, noteFeedSdk, type GuestLink } from './link.js';

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
  readonly input: InputForwarder;

  constructor(link: GuestLink) {
    this.link = link;
    this.input = new InputForwarder(link);
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
    noteFeedSdk();
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
    state.input.start();
    const call = state.link.call('load').catch((error: unknown) => {
      if (error instanceof PlatformError && error.code === 'UNSUPPORTED') state.input.refuse();
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
