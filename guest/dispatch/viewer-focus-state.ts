/**
 * Here or away from what is known at one instant: the decision of
 * viewer-focus.ts, which follows it over time, apart so that the first load
 * can make it too. Platform.dispatch's early socket (early-socket.ts) joins
 * with the state a follower made then would start with, so its join is the
 * one the session makes (join-frame.ts).
 */
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
  const visible = typeof document === 'undefined' || document.visibilityState !== 'hidden';
  if (link.state === 'connecting') return seen.waited && visible && seen.onScreen ? 'here' : 'away';
  if (link.state === 'linked' && link.focusByPlayback) return seen.playing && visible ? 'here' : 'away';
  return visible && seen.onScreen ? 'here' : 'away';
}
