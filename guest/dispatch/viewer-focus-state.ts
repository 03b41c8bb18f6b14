/**
 * Here or away from what is known at one instant: the decision of
 * viewer-focus.ts, which follows it over time, apart so that the first load
 * can make it too. Platform.dispatch's early socket (early-socket.ts) joins
 * with the state a follower made then would start with, so its join is the
 * one the session makes (join-frame.ts).
 */
import { KIT_FRAME_NAME } from '../../protocol/link.js';
import type { PresenceState } from '../../protocol/signaling-members.js';
import type { GuestLink } from '../link.js';

/** What the follower has seen so far (viewer-focus.ts). */
export interface FocusSeen {
  /** The link's wait ({@link LINK_WAIT_MS} in viewer-focus.ts) is over. */
  readonly waited: boolean;
  /** The feed says the template plays. */
  readonly playing: boolean;
  /** The frame is on the viewer's screen, as far as anyone said. */
  readonly onScreen: boolean;
}

/** Here or away now (the rules are viewer-focus.ts's module comment). */
export function viewerFocusState(link: Pick<GuestLink, 'state' | 'focusByPlayback'>, seen: FocusSeen): PresenceState {
  const visible = (globalThis.document as Document | undefined)?.visibilityState !== 'hidden';
  // In a feed (linked, focus by playback) the feed's playback says it; anywhere else the frame on
  // screen does, and while the link is still being made (so in a frame) only a frame a kit host
  // named (protocol/link.ts) waits for its answer first. One expression: this is in the first load.
  const looked = link.state === 'linked' && link.focusByPlayback ? seen.playing : seen.onScreen && (link.state !== 'connecting' || seen.waited || window.name !== KIT_FRAME_NAME);
  return looked && visible ? 'here' : 'away';
}
