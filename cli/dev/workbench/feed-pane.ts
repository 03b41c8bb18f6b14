/**
 * The Feed pane: the kit's <platform-feed> in a phone's frame, over the template, a neighbour
 * (so the template is preloaded beside another item and comes into focus as in a real feed) and
 * every remix published from the workbench. It also keeps the focus check: while the template's
 * item is not in focus, it must not be listed `here` in a shard (a preloaded frame may join, away).
 */
import type { FeedItem, PlatformFeed } from 'platform-kit/host';
import type { Checks } from './checks.js';
import type { WorkbenchLog } from './log.js';
import { frameUrl, identityFor, type DevRemix, type WorkbenchState } from './state.js';

/** How long the shards may hold more members than focused template items before the check warns (a leave takes a moment). */
const FOCUS_GRACE_MS = 1_500;

export class FeedPane {
  readonly #feed: PlatformFeed;
  readonly #state: WorkbenchState;
  readonly #parts: { log: WorkbenchLog; checks: Checks };
  /** Which items are the template (index 0 and the remixes), and which one is in focus. */
  #focused = 0;
  #members = 0;
  #overSince: number | null = null;

  constructor(pane: HTMLElement, state: WorkbenchState, parts: { log: WorkbenchLog; checks: Checks }) {
    this.#state = state;
    this.#parts = parts;
    const heading = document.createElement('h2');
    heading.textContent = 'Feed · swipe, wheel or ↑ ↓';
    const phone = document.createElement('div');
    phone.className = 'phone';
    const feed = document.createElement('platform-feed');
    feed.actions = ['remix', 'share'];
    feed.allow = 'camera; microphone; autoplay';
    feed.templateProjectId = state.feedProjectId;
    feed.getIdentityToken = identityFor(0);
    feed.items = [
      { id: 'template', url: frameUrl(state, 'feed'), projectId: state.projectId, title: 'Your template' },
      { id: 'neighbour', url: state.neighbourUrl, title: 'A neighbour' },
      ...state.remixes.map((remix) => this.#remixItem(remix)),
    ];
    phone.append(feed);
    pane.append(heading, phone);
    this.#feed = feed;
    feed.addEventListener('feed-focuschange', ({ detail }) => {
      this.#focused = detail.index;
      this.#evaluate();
      parts.log.add('feed', `focus ${detail.index} (${detail.item.title ?? detail.item.url})`);
    });
    feed.addEventListener('feed-playbackchange', ({ detail }) => parts.log.add('feed', `playback ${detail.index}: ${detail.isPlaying ? 'playing' : 'paused'}`));
    feed.addEventListener('feed-skip', ({ detail }) => {
      parts.log.add('feed', `skipped ${detail.index}: ${detail.error.message}`);
      if (detail.item.id !== 'neighbour') parts.checks.warn('load', `the feed skipped it: ${detail.error.message}`);
    });
    feed.addEventListener('feed-createremix', () => parts.log.add('feed', 'createRemix'));
    feed.addEventListener('feed-share', () => parts.log.add('feed', 'share'));
    // Keys reach the feed without a click first: it is this pane's main content.
    requestAnimationFrame(() => feed.focus({ preventScroll: true }));
  }

  /** A remix published from the editor: appended, and the feed moves to it. */
  published(remix: DevRemix): void {
    this.#feed.appendItems([this.#remixItem(remix)]);
    this.#parts.log.add('feed', `published ${remix.title}`);
  }

  /** Members of the feed's project's shards: the feed's frames that joined one. */
  presence(feedMembers: number): void {
    this.#members = feedMembers;
    this.#evaluate();
  }

  /** Frames of the template that may hold a place: the one in focus, when it is the template (index 1 is the neighbour). */
  #allowed(): number {
    return this.#focused !== 1 ? 1 : 0;
  }

  /**
   * On a change of presence and of focus both: a template that stays joined while the feed
   * moves away changes no presence at all, and that is the very case this check is for.
   */
  #evaluate(): void {
    if (this.#members <= this.#allowed()) {
      this.#overSince = null;
      return;
    }
    if (this.#overSince !== null) return; // already timed
    const since = (this.#overSince = performance.now());
    setTimeout(() => {
      // Over for the whole grace (a leave takes a moment), not over, under and over again.
      if (this.#overSince !== since || this.#members <= this.#allowed()) return;
      const focused = this.#allowed() === 1 ? 'one is' : 'none is';
      this.#parts.checks.warn(
        'focus',
        `${this.#members} feed frame(s) are listed here in a shard while ${focused} in focus: Platform.dispatch shows a preloaded frame away by itself; do not force its state`,
      );
    }, FOCUS_GRACE_MS);
  }

  #remixItem(remix: DevRemix): FeedItem {
    return { id: remix.id, url: frameUrl(this.#state, 'feed'), projectId: this.#state.projectId, title: remix.title, values: remix.values };
  }
}
