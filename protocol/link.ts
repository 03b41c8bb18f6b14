/**
 * The host ↔ guest wire: the handshake messages and the two call surfaces.
 *
 * Handshake (the only traffic outside the MessagePort):
 *   1. The guest posts {@link HelloMessage} to `window.parent` with target
 *      `'*'`. It is the only message ever posted with `'*'`; it carries a
 *      random `helloId` and nothing secret.
 *   2. The host accepts it only when `event.source` is its iframe's window and
 *      `event.origin` is the template's origin (or on its allow-list).
 *   3. The host answers that exact origin with {@link WelcomeMessage} and
 *      transfers one end of a fresh MessageChannel.
 *   4. Everything else is comlink on that port, both directions, through the
 *      allow-listed surfaces {@link HOST_METHODS} and {@link GUEST_METHODS}.
 *
 * A guest that reloads has a new `helloId`; the host drops the old port and
 * links the new one. A repeated hello with the same `helloId` (the guest
 * retries until answered) is ignored.
 */
import type { BuiltCustomization } from './customization.js';
import type { PlainData, VccPath } from './data.js';
import { listingEvery } from './listing-every.js';
import { PROJECT_ID_PATTERN } from './signaling-endpoint.js';

/** Version of this wire format; a peer with another version is refused. */
export const PROTOCOL_VERSION = 1;

/**
 * The name a kit host gives the frames it makes (the iframe's `name`, which the template reads as
 * `window.name` before any message could come): "a host that will answer your hello embeds you".
 * Such a template waits for the link before it tells its shard it is looked at, since the host
 * may have it preloaded out of sight. A template in any other frame decides by what it sees at
 * once (guest/dispatch/viewer-focus.ts). Nothing is trusted on it: a wrong name only changes
 * when a member first shows as here. A host that passes its own iframe with a name keeps it.
 */
export const KIT_FRAME_NAME = 'platform-kit';

/** The guest's hello, posted to `window.parent` with target `'*'`. */
export interface HelloMessage {
  readonly type: 'platform-kit:hello';
  readonly version: typeof PROTOCOL_VERSION;
  /** Random per page load: tells a reload from a retry. */
  readonly helloId: string;
}

/** The host's answer, posted to the guest's exact origin with a MessagePort. */
export interface WelcomeMessage {
  readonly type: 'platform-kit:welcome';
  readonly version: typeof PROTOCOL_VERSION;
  /** The helloId this answers. */
  readonly helloId: string;
  /**
   * The platform project the template belongs to in this host (its `Platform.dispatch` joins it
   * when the template was built without one): a template is built once and embedded by hosts
   * that each know their project.
   */
  readonly projectId?: string;
  /**
   * `'playback'`: this host (a feed) says when the template is in front of its viewer with
   * `playbackStateChanged`; until it plays, its `Platform.dispatch` shows it `away` (preloaded).
   * Absent: the template is in front of its viewer while its page is visible (an editor, a page).
   */
  readonly focus?: 'playback';
}

const HELLO_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** Guard: a {@link HelloMessage}, or null. */
export function parseHello(data: unknown): HelloMessage | null {
  if (typeof data !== 'object' || data === null) return null;
  const { type, version, helloId } = data as Record<string, unknown>;
  if (type !== 'platform-kit:hello' || version !== PROTOCOL_VERSION) return null;
  if (typeof helloId !== 'string' || !HELLO_ID.test(helloId)) return null;
  return { type, version, helloId };
}

/** Guard: a {@link WelcomeMessage}, or null. */
export function parseWelcome(data: unknown): WelcomeMessage | null {
  if (typeof data !== 'object' || data === null) return null;
  const { type, version, helloId, projectId, focus } = data as Record<string, unknown>;
  if (type !== 'platform-kit:welcome' || version !== PROTOCOL_VERSION) return null;
  if (typeof helloId !== 'string' || !HELLO_ID.test(helloId)) return null;
  // Any other value is a newer host's: the template falls back to its page's visibility.
  const focusPart = focus === 'playback' ? { focus: 'playback' as const } : {};
  if (projectId === undefined) return { type, version, helloId, ...focusPart };
  // A project id that is not one is a broken host: the welcome is refused, not half taken.
  if (typeof projectId !== 'string' || !PROJECT_ID_PATTERN.test(projectId)) return null;
  return { type, version, helloId, projectId, ...focusPart };
}

/** A fresh random hello id. */
export function newHelloId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Which editor the template is shown in. */
export interface EditorAttributes {
  /** `instant`: remixing in place; `full`: the full editor with a side panel. */
  readonly type: 'full' | 'instant';
  /** `new`: a new remix; `edit`: editing the user's existing project. */
  readonly mode: 'new' | 'edit';
}

/** A position for a control, in template (iframe viewport) CSS pixels. */
export interface ControlPosition {
  readonly x: number;
  readonly y: number;
}

/** Attributes of onPresentControl. */
export interface PresentControlAttributes {
  readonly position?: ControlPosition;
}

/** Values the host holds for a template: `{ scope: { key: value } }`, over the built ones. */
export type ValueOverrides = { readonly [scope: string]: { readonly [key: string]: PlainData } };

/** Everything the host re-sends when it (re)links a guest. */
export interface GuestSnapshot {
  /** Values set in this remix (or by the host), layered over the template's built values. */
  readonly values: ValueOverrides;
}

/**
 * What the guest may call on the host. Every argument is checked by the host
 * at the door; these types say what a well-behaved guest sends.
 */
export interface HostApi {
  /** The guest's listeners are set: flush queued notifications. */
  ready(): void;
  /**
   * onSetValue: set the value at `path`; with `skipUpdate` true the guest gets no echo.
   * The guest leaves `skipUpdate` out when it is false (one argument less per keystroke);
   * anything but `true` means false.
   */
  setValue(path: VccPath, value: PlainData, skipUpdate?: boolean): void;
  /** onPresentControl: open the control of `path`. */
  presentControl(path: VccPath, attributes: PresentControlAttributes): void;
  /** finish(): advance the remix to the preview. */
  finish(): void;
  /** The user clicked inside the template at `position` (template CSS pixels): where a control opens by default. */
  reportPointer(position: ControlPosition): void;
  /** FeedSdk.load(): the template has loaded; feed notifications may flow and touches are forwarded. */
  load(): void;
  /**
   * The guest's page fired its `load` event; `feedSdk` says whether it made a
   * FeedSdk by then. Sent once per page by the link itself. A page without
   * one (a template of the original SDK that never heard of load()) counts
   * as loaded from here, as if it had called load(); one with a FeedSdk must
   * still call load() itself (the feed skips it otherwise).
   */
  pageLoaded(feedSdk: boolean): void;
  /** FeedSdk.requestCancelTouch(): the template takes the current gesture; the feed stops following it. */
  requestCancelTouch(): void;
  /** FeedSdk.navigate(url): replace this item's content with `url`, without a browser navigation. */
  navigate(url: string): void;
  /** FeedSdk.present(url): open `url` in a modal sheet (replacing the view when already in one). */
  present(url: string): void;
  /** FeedSdk.share(): open the share menu for this template. */
  share(): void;
  /** FeedSdk.createRemix({id?}): open the editor for project `id` (default: this one). */
  createRemix(options: CreateRemixOptions): void;
  /** A touch event inside the template, forwarded after load() so the feed can follow swipes. */
  touch(event: ForwardedTouchEvent): void;
  /** A wheel event inside the template, forwarded after load(). */
  wheel(event: ForwardedWheelEvent): void;
  /** A feed navigation key pressed inside the template, forwarded after load(). */
  key(event: ForwardedKeyEvent): void;
  /** Platform.identity.getToken(): a short-lived user token for the viewer, issued through the host. */
  getIdentityToken(): IdentityTokenResult;
}

/** What Platform.identity.getToken() resolves: the host vouches for the viewer. */
export interface IdentityTokenResult {
  /** Short-lived JWT to pass to Platform.dispatch.identify() or a backend. */
  readonly userToken: string;
  /** 'admin' for the project's owner. Presumed: a backend must verify the token. */
  readonly presumedRole: 'admin' | 'user' | 'unknown';
  readonly presumedAttributes: { readonly username?: string; readonly avatarUrl?: string; readonly [attribute: string]: string | undefined };
}

/** Options of FeedSdk.createRemix. */
export interface CreateRemixOptions {
  /** Project to remix; default the current one. */
  readonly id?: string;
}

/** One touch point of a {@link ForwardedTouchEvent}, in template (iframe viewport) CSS pixels. */
export interface ForwardedTouchPoint {
  readonly identifier: number;
  readonly clientX: number;
  readonly clientY: number;
  /**
   * Screen coordinates. Preferred by the feed when present: Chromium measures
   * a frame's client coordinates against where it last drew the iframe,
   * which lags while the feed is moving it; screen coordinates do not.
   */
  readonly screenX?: number;
  readonly screenY?: number;
}

/** A wheel event inside the template, forwarded after load() so the wheel moves the feed over a template too. */
export interface ForwardedWheelEvent {
  readonly deltaX: number;
  readonly deltaY: number;
  /** WheelEvent.deltaMode: 0 pixels, 1 lines, 2 pages. */
  readonly deltaMode: 0 | 1 | 2;
  readonly timeStamp: number;
}

/** A navigation key pressed inside the template (not in an editable field), forwarded after load(). */
export interface ForwardedKeyEvent {
  readonly key: 'ArrowUp' | 'ArrowDown' | 'PageUp' | 'PageDown' | 'j' | 'k';
}

/** A touch event the guest forwards to the feed. */
export interface ForwardedTouchEvent {
  readonly type: 'start' | 'move' | 'end' | 'cancel';
  /** Every touch point still on the surface. */
  readonly touches: readonly ForwardedTouchPoint[];
  /** The points that changed in this event. */
  readonly changedTouches: readonly ForwardedTouchPoint[];
  /** event.timeStamp in the template. */
  readonly timeStamp: number;
}

/** What the host may call on the guest. */
export interface GuestApi {
  /** Returns the template's built customization (values and `@@editor` definitions). */
  describe(): BuiltCustomization;
  /** Replaces the guest's values silently (no listener fires): sent at every (re)link, before ready(). */
  sync(snapshot: GuestSnapshot): void;
  /** onValueChanged notification. */
  valueChanged(path: VccPath, value: PlainData | null): void;
  /** onSetActivePath notification; null when no control is open. */
  activePathChanged(path: VccPath | null): void;
  /** onSetRemixing notification. */
  remixingChanged(isRemixing: boolean, editorAttributes: EditorAttributes): void;
  /** FeedSdk onPlaybackStateChanged notification: true when the template is in focus. */
  playbackStateChanged(isPlaying: boolean): void;
  /**
   * The part of the template the feed draws over (its Remix and Share
   * buttons on a narrow feed). Not gated: sent at every link, again at
   * load(), and whenever it changes, so a template can lay out around it
   * before it is shown. The guest's FeedSdk keeps it and sets the CSS
   * custom properties `--platform-feed-inset-right` and `-bottom`.
   */
  insetsChanged(insets: FeedInsets): void;
}

/**
 * The corner of a template the feed draws over, in template CSS pixels: the
 * rectangle `right` wide at its right edge and `bottom` tall at its bottom
 * edge (both 0: nothing). A template keeps its text out of it by padding its
 * content on the right or at the bottom, whichever suits its layout.
 */
export interface FeedInsets {
  readonly right: number;
  readonly bottom: number;
}

/** Largest inset the guest accepts: anything bigger is not a corner of a screen. */
export const MAX_FEED_INSET_PX = 4_096;

/** Guard: {@link FeedInsets} (two finite numbers from 0 to {@link MAX_FEED_INSET_PX}), or null. */
export function parseFeedInsets(value: unknown): FeedInsets | null {
  if (typeof value !== 'object' || value === null) return null;
  const { right, bottom } = value as Record<string, unknown>;
  const inset = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= MAX_FEED_INSET_PX;
  return inset(right) && inset(bottom) ? { right, bottom } : null;
}

/** Method names the host serves to the guest: nothing else is ever called. Every method of {@link HostApi}: one left out does not compile. */
export const HOST_METHODS = listingEvery<keyof HostApi>()([
  'ready',
  'setValue',
  'presentControl',
  'finish',
  'reportPointer',
  'load',
  'pageLoaded',
  'requestCancelTouch',
  'navigate',
  'present',
  'share',
  'createRemix',
  'touch',
  'wheel',
  'key',
  'getIdentityToken',
]);

/** Method names the guest serves to the host: nothing else is ever called. Every method of {@link GuestApi}: one left out does not compile. */
export const GUEST_METHODS = listingEvery<keyof GuestApi>()(['describe', 'sync', 'valueChanged', 'activePathChanged', 'remixingChanged', 'playbackStateChanged', 'insetsChanged']);

/** A guest method that is a listener notification. */
export type GuestNotification = 'valueChanged' | 'activePathChanged' | 'remixingChanged' | 'playbackStateChanged';

/**
 * Which guest call opens the gate of each notification: the host queues it,
 * in order, until then. Remix listeners are set before ready(); a feed
 * template is ready for playback once it called load().
 */
export const NOTIFICATION_GATES: { readonly [Name in GuestNotification]: 'ready' | 'load' } = {
  valueChanged: 'ready',
  activePathChanged: 'ready',
  remixingChanged: 'ready',
  playbackStateChanged: 'load',
};

/** Guard for {@link EditorAttributes}. */
export function isEditorAttributes(value: unknown): value is EditorAttributes {
  if (typeof value !== 'object' || value === null) return false;
  const { type, mode } = value as Record<string, unknown>;
  return (type === 'full' || type === 'instant') && (mode === 'new' || mode === 'edit');
}

/** Guard for {@link ControlPosition}: two finite numbers. */
export function isControlPosition(value: unknown): value is ControlPosition {
  if (typeof value !== 'object' || value === null) return false;
  const { x, y } = value as Record<string, unknown>;
  return typeof x === 'number' && Number.isFinite(x) && typeof y === 'number' && Number.isFinite(y);
}
