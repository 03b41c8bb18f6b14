/**
 * The public types of `TemplateFrame` (template-frame.ts): its options,
 * the defaults of what a guest may send, its states and its events. Apart, as
 * the feed's and the server's options are, so the frame's file holds the
 * handshake and the link, not pages of option docs.
 */
import { DEFAULT_MAX_VALUE_BYTES } from '../protocol/data.js';
import type { PlatformError } from '../protocol/errors.js';
import type { CallLimits } from '../protocol/call-budget.js';
import type { Refusal } from '../protocol/rpc.js';
import type { HostHandlers } from './handler-layers.js';

/** Options of `TemplateFrame`. */
export interface TemplateFrameOptions {
  /** URL of the template. Its origin is the one origin a hello is accepted from (plus `allowedOrigins`). */
  readonly src: string | URL;
  /**
   * Adopt this iframe instead of creating one; its `src` is set by the frame.
   * Without a `sandbox` attribute of its own it gets the frame's, which lets
   * the template do anything but navigate the host page.
   */
  readonly iframe?: HTMLIFrameElement;
  /** Append the new iframe here. Without it, insert `frame.iframe` yourself. */
  readonly container?: HTMLElement;
  /** More origins a hello is accepted from (a template that redirects to a CDN, say). Never `'*'`. */
  readonly allowedOrigins?: readonly string[];
  /** No hello within this time after creation fails `whenLinked()` with `HANDSHAKE_TIMEOUT`. Default 10000. */
  readonly handshakeTimeoutMs?: number;
  /** A call to the guest with no answer within this time fails with `CALL_TIMEOUT`. Default 5000. */
  readonly callTimeoutMs?: number;
  /** Notifications held before the guest is ready; one more is refused with `QUEUE_FULL`. Default 1000. */
  readonly maxQueuedNotifications?: number;
  /** Handlers of the guest's calls. */
  readonly handlers?: HostHandlers;
  /** The iframe's `allow` attribute (permissions policy). Default `autoplay; fullscreen; clipboard-write`. */
  readonly allow?: string;
  /** The iframe's accessible title. */
  readonly title?: string;
  /**
   * The platform project the template belongs to here, told to it in the welcome: its
   * `Platform.dispatch` joins this project when the template was built without one.
   */
  readonly projectId?: string;
  /**
   * Whether this host tells the template when it is in front of the viewer with
   * `playbackStateChanged` (a feed does: `<platform-feed>` sets it). The template's
   * `Platform.dispatch` then shows it `away` to the others until it plays (preloaded, scrolled
   * past), instead of `here` while its page is visible. Default false.
   */
  readonly focusByPlayback?: boolean;
  /**
   * Messages the guest may send per second, sustained, once `maxCallsBurst`
   * is spent: every call on its port (allowed or refused), every answer to
   * no call of ours, every hello. Above it the guest is unlinked with
   * `RATE_LIMITED`. Default 500: over twice what a 240 Hz touch or pointer
   * stream needs, and at the host's ~20 to 50 µs a call, a few percent of
   * its main thread. `Infinity`: no limit (a benchmark).
   */
  readonly maxCallsPerSecond?: number;
  /**
   * Messages the guest may send at once before `maxCallsPerSecond` applies.
   * Default 5000: a burst that layers above refuse one by one (the feed's
   * own rate limits answer `RATE_LIMITED` per call) stays a refusal, not an
   * unlink; at the host's cost a call, it is well under 500 ms of work.
   */
  readonly maxCallsBurst?: number;
  /**
   * Bytes of call arguments the guest may send per second, sustained, once
   * `maxBytesBurst` is spent (strings count their length, see
   * `maxCallBytes`). Above it the guest is unlinked with `RATE_LIMITED`.
   * Default 4 MiB (4194304): a 256 KiB value sixteen times a second.
   */
  readonly maxBytesPerSecond?: number;
  /**
   * Bytes of call arguments the guest may send at once before
   * `maxBytesPerSecond` applies; one call bigger than this unlinks the guest
   * by itself. Default 16 MiB (16777216).
   */
  readonly maxBytesBurst?: number;
  /**
   * Largest arguments of one call, in bytes as their JSON would at least
   * take (a string: its length and quotes), measured at the door by a walk
   * that stops as soon as it passes this; a bigger call is refused with
   * `VALUE_TOO_LARGE` (a 'refused' event) before any handler sees it, and
   * its bytes are still charged to `maxBytesPerSecond`. Default 260 KiB
   * (266240): RemixSession's value limit (256 KiB) and room for the path.
   * Raise it with RemixSession's `maxValueBytes`.
   */
  readonly maxCallBytes?: number;
  /**
   * Keep the viewer's focus where the viewer put it: the template takes the
   * focus only from a gesture aimed at its frame (focus-guard.ts). Default
   * true; false leaves the iframe's focus to the browser.
   */
  readonly guardFocus?: boolean;
}

/** The defaults of {@link TemplateFrameOptions}' limits of what a guest may send. */
export const DEFAULT_GUEST_LIMITS: CallLimits = Object.freeze({
  maxCallsPerSecond: 500,
  maxCallsBurst: 5_000,
  maxBytesPerSecond: 4 * 1024 * 1024,
  maxBytesBurst: 16 * 1024 * 1024,
  maxCallBytes: DEFAULT_MAX_VALUE_BYTES + 4 * 1024,
});

/**
 * Where a `TemplateFrame` stands: loading (no link yet), linked, ready
 * (the guest called ready()), unlinked (the guest went over its limits and
 * is ignored from then on), destroyed.
 */
export type TemplateFrameState = 'loading' | 'linked' | 'ready' | 'unlinked' | 'destroyed';

/** A message refused at the handshake or at the door of the host surface (the guest's call was answered with the code). */
export interface RefusedEvent {
  readonly code: 'ORIGIN_REFUSED' | Refusal['code'];
  readonly message: string;
}

/** Payload of 'unlinked': why the frame dropped its guest for good. */
export interface UnlinkedEvent {
  /** `RATE_LIMITED`: the guest sent more calls or bytes than the frame's limits allow. */
  readonly error: PlatformError;
}

/** Events of a `TemplateFrame`. */
export interface TemplateFrameEvents {
  /** A guest linked: `relinked` is true after a reload. Send your state now. */
  link: { readonly relinked: boolean };
  /** The guest called ready(); queued remix notifications were sent. */
  ready: undefined;
  /** The guest called load() (FeedSdk); queued feed notifications were sent. */
  load: undefined;
  /** A message was refused (and counted). */
  refused: RefusedEvent;
  /**
   * The guest went over the frame's limits and was unlinked for good: its
   * port is closed and it is ignored until the frame is destroyed. Fires
   * once; 'error' fires with the same error right after.
   */
  unlinked: UnlinkedEvent;
  /** Something failed that no caller awaits (a notification, the handshake). */
  error: PlatformError;
}
