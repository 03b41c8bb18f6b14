/**
 * Whether the viewer is looking at this template: `here` or `away`, what
 * `Platform.dispatch` tells its shard (ConnectedClient.state).
 *
 * - In a feed (the host's welcome says `focus: 'playback'`): here while the
 *   feed says the template plays (`playbackStateChanged(true)`: in focus,
 *   loaded, the tab visible) and the page is visible; away before that
 *   (preloaded, so a template may connect at once and be ready when the
 *   viewer swipes to it) and after it (scrolled past).
 * - Anywhere else (a page on its own, an editor): here while the page is
 *   visible and, in a frame, the frame is on the viewer's screen; away while
 *   its tab is hidden or its frame is not shown (`display: none`, as a
 *   workbench's editor pane is while its Players tab is open, or scrolled out
 *   of the page). An IntersectionObserver against the top-level viewport
 *   tells it: it sees through cross-origin frames, and a hidden frame
 *   intersects nothing. In a feed the feed's playback says it instead (a
 *   preloaded neighbour is off screen and away already).
 * - In a frame a kit host made (named `KIT_FRAME_NAME`, protocol/link.ts), while the link
 *   to the host is still being made: away, for at most {@link LINK_WAIT_MS}.
 *   A feed answers a template's hello within a few ms, so one that turns out
 *   to be preloaded never flashes `here` to the others, and one in front of
 *   its viewer says so a few ms later. A frame of any other page (a plain
 *   iframe on a blog, a page with no kit: nobody will answer, and the link
 *   gives up only after its handshake timeout, 5 s) is a page on its own from
 *   the start: here while visible and on screen. Measured (players-meet,
 *   members in plain iframes): listed 1,000 ms after connect() when every
 *   frame waited, as soon as the join is answered now.
 */
import { getGuestLink } from '../link.js';
import type { PresenceState } from '../../protocol/signaling.js';
import { viewerFocusState } from './viewer-focus-state.js';

/** Longest a template stays away while its host has not answered (see the module comment). */
export const LINK_WAIT_MS = 1_000;

/** Follows the viewer's focus; `onChange` hears every change. Returns the function that stops it. */
export function followViewerFocus(onChange: (state: PresenceState) => void): { readonly state: PresenceState; stop(): void } {
  const link = getGuestLink();
  let playing = link.isPlaying;
  let state: PresenceState = 'away';
  // Only in a frame: a page on its own is on screen while it is visible.
  const inFrame = typeof window !== 'undefined' && window.top !== window;
  let waited = false;
  /** False once the observer below said the frame is off the viewer's screen; true until it says. */
  let onScreen = true;
  // The same decision the early socket's join made (viewer-focus-state.ts), from what is seen now.
  const decide = (): PresenceState => viewerFocusState(link, { waited, playing, onScreen });
  const update = (): void => {
    const next = decide();
    if (next === state) return;
    state = next;
    onChange(next);
  };
  const removeHandler = link.handle('playbackStateChanged', (isPlaying: unknown) => {
    // FeedSdk answers a malformed call; here it is only not followed.
    if (typeof isPlaying !== 'boolean') return;
    playing = isPlaying;
    update();
  });
  const hasDocument = typeof document !== 'undefined';
  if (hasDocument) document.addEventListener('visibilitychange', update);
  const observer =
    hasDocument && inFrame && typeof IntersectionObserver !== 'undefined'
      ? new IntersectionObserver((entries) => {
          onScreen = entries.at(-1)?.isIntersecting ?? onScreen;
          update();
        })
      : undefined;
  observer?.observe(document.documentElement);
  let stopped = false;
  void link.settled().then(() => {
    if (!stopped) update();
  });
  const waitTimer = link.state === 'connecting' ? setTimeout(() => ((waited = true), update()), LINK_WAIT_MS) : undefined;
  state = decide();
  return {
    get state() {
      return state;
    },
    stop() {
      stopped = true;
      clearTimeout(waitTimer);
      removeHandler();
      observer?.disconnect();
      if (hasDocument) document.removeEventListener('visibilitychange', update);
    },
  };
}
