/**
 * The door of a template's calls to the feed: every handler a live frame
 * answers with takes a token of the frame's rate bucket first (`RATE_LIMITED`
 * without one) and reports a refusal as an 'error' event, at most once a
 * second for a flood. Apart so that every call (the feed's own and those
 * of an item's RemixSession) goes through this one place, and the pieces
 * behind it ({@link GuestCalls}) see only checked arguments.
 */
import { PlatformError, isPlatformError } from '../../protocol/errors.js';
import type { HostHandlers } from '../template-frame.js';
import { checkTargetUrl } from './feed-items.js';
import type { LiveFrame } from './live-frame.js';

/** The input a template forwards, once through the door (FeedGestures). */
export interface GuestInput {
  cancelTouch(live: LiveFrame): void;
  guestTouch(live: LiveFrame, event: unknown): void;
  guestWheel(live: LiveFrame, event: unknown): void;
  guestKey(live: LiveFrame, event: unknown): void;
}

/** The feed actions a template asks for, once through the door (SheetActions). */
export interface GuestActions {
  navigate(live: LiveFrame, url: URL): void;
  present(live: LiveFrame, url: URL): void;
  share(live: LiveFrame): void;
  createRemix(live: LiveFrame, options: unknown): void;
}

/** The viewer's identity, once through the door (FeedIdentity: the feed's getIdentityToken, for pages of the item's origin). */
export interface GuestIdentity {
  getToken(live: LiveFrame): unknown;
}

/** What the feed does for a template's calls, once they are through the door. */
export interface GuestCalls {
  readonly input: GuestInput;
  readonly actions: GuestActions;
  readonly identity: GuestIdentity;
}

type Bucket = 'touch' | 'call';

/** The door; see the module comment. */
export class GuestDoor {
  readonly #calls: GuestCalls;
  readonly #reportError: (index: number, error: PlatformError) => void;

  /** `reportError`: emits the feed's 'error' event. */
  constructor(calls: GuestCalls, reportError: (index: number, error: PlatformError) => void) {
    this.#calls = calls;
    this.#reportError = reportError;
  }

  /** The handlers of `live`'s frame. */
  handlersFor(live: LiveFrame): HostHandlers {
    const { input, actions, identity } = this.#calls;
    const guarded = (bucket: Bucket, run: (...args: unknown[]) => unknown): ((...args: unknown[]) => unknown) => this.guarded(live, bucket, run);
    const refuseOther = (name: string) => (): never => {
      throw new PlatformError('UNSUPPORTED', `the feed does not handle ${name}()`);
    };
    return {
      load: () => undefined,
      requestCancelTouch: guarded('call', () => input.cancelTouch(live)),
      navigate: guarded('call', (url) => actions.navigate(live, checkTargetUrl(url, 'navigate()'))),
      present: guarded('call', (url) => actions.present(live, checkTargetUrl(url, 'present()'))),
      share: guarded('call', () => actions.share(live)),
      createRemix: guarded('call', (options) => actions.createRemix(live, options)),
      // Any live page may ask, not only the one in focus: a template sets up (and a neighbour preloads) before it is shown.
      getIdentityToken: guarded('call', () => identity.getToken(live)),
      touch: guarded('touch', (event) => input.guestTouch(live, event)),
      wheel: guarded('touch', (event) => input.guestWheel(live, event)),
      key: guarded('touch', (event) => input.guestKey(live, event)),
      // InstantRemixing in a feed template reports clicks: harmless, and the feed opens no controls.
      // (An item with values has a RemixSession whose handlers sit over these four.)
      reportPointer: guarded('touch', () => undefined),
      setValue: refuseOther('setValue'),
      presentControl: refuseOther('presentControl'),
      finish: refuseOther('finish'),
    };
  }

  /** `run` behind the door: a token of `bucket` first, a refusal reported. */
  guarded(live: LiveFrame, bucket: Bucket, run: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
    return (...args: unknown[]): unknown => {
      try {
        if (!(bucket === 'touch' ? live.touchBucket : live.callBucket).take()) {
          throw new PlatformError('RATE_LIMITED', `too many ${bucket === 'touch' ? 'input events' : 'calls'} from this template; slow down`);
        }
        return run(...args);
      } catch (error) {
        if (isPlatformError(error)) this.#reportRefusal(live, error);
        throw error;
      }
    };
  }

  /** Reports a refused call as an 'error' event; a flood is reported at most once a second. */
  #reportRefusal(live: LiveFrame, error: PlatformError): void {
    if (error.code === 'RATE_LIMITED') {
      const now = performance.now();
      if (now - live.lastLimitReportMs < 1_000) return;
      live.lastLimitReportMs = now;
    }
    this.#reportError(live.index, error);
  }
}

/** A notification lost to a reload or a destroyed frame: the next link re-sends state, so it is only logged. */
export function reportQuietly(error: unknown): void {
  if (isPlatformError(error) && (error.code === 'LINK_RESET' || error.code === 'LINK_CLOSED')) return;
  console.debug('platform-kit: a feed notification was not delivered', error);
}
