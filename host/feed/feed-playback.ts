/**
 * Playback: which live template is told it plays. A template plays when it
 * is the one in focus, has called load() and the tab is visible (a hidden
 * tab pauses it); changes are sent as they happen, pauses before plays, and
 * a play waits until the template leaving focus has heard its pause. Apart from the window and the
 * sheets because it is a state machine of its own (the pause barrier, the
 * play in flight) that both of them only ask to reconcile.
 */
import { reportQuietly } from './guest-door.js';
import type { LiveFrame } from './live-frame.js';

/** Longest a play waits for the pause of the template leaving focus. */
const PAUSE_WAIT_MS = 100;

/** What playback reads of the feed. */
export interface PlaybackSubject {
  /** Every live template: the window's and the sheet's. */
  allLive(): readonly LiveFrame[];
  /** Whether `live` is the template in focus (the current item's, unless a sheet covers it; then the sheet's). */
  isFocused(live: LiveFrame): boolean;
  /** A template was told it plays or pauses (the 'playbackchange' event). */
  changed(index: number, isPlaying: boolean): void;
  /** The template told to play has answered (or failed): the window may now preload and retire. */
  playHeard(): void;
}

/** The playback state machine; see the module comment. */
export class FeedPlayback {
  readonly #subject: PlaybackSubject;
  #stopped = false;
  #playInFlight = false;
  /** Set while pauses are on their way: plays wait for it (see {@link reconcile}). */
  #pauseBarrier: Promise<unknown> | null = null;

  /** Listens to the tab's visibility until {@link stop}. */
  constructor(subject: PlaybackSubject) {
    this.#subject = subject;
    document.addEventListener('visibilitychange', this.#onVisibilityChange);
  }

  /** True when `live` plays and its play was heard, with no pause or play on its way. */
  isSettled(live: LiveFrame): boolean {
    return live.playing && this.#pauseBarrier === null && !this.#playInFlight;
  }

  /**
   * Tells each live template whether it plays. Falses go first: the template
   * leaving focus hears it before the next one starts.
   */
  reconcile(): void {
    if (this.#stopped) return;
    const pauses: Promise<void>[] = [];
    for (const live of this.#subject.allLive()) {
      if (!live.playing || this.#wantsPlay(live)) continue;
      live.playing = false;
      this.#subject.changed(live.index, false);
      pauses.push(live.frame.notify('playbackStateChanged', false).catch((error: unknown) => reportQuietly(error)));
    }
    if (pauses.length > 0) {
      // Two templates in two processes: "sent first" is not "heard first". The
      // next one plays once the one leaving focus has answered (its handler
      // ran), or after PAUSE_WAIT_MS when it is too busy to answer.
      const barrier: Promise<unknown> = Promise.race([Promise.all(pauses), new Promise((resolve) => setTimeout(resolve, PAUSE_WAIT_MS))]);
      this.#pauseBarrier = barrier;
      void barrier.then(() => {
        if (this.#pauseBarrier !== barrier) return;
        this.#pauseBarrier = null;
        this.#sendPlays();
      });
      return;
    }
    if (!this.#pauseBarrier) this.#sendPlays();
  }

  /**
   * A template about to be removed: if it was playing, it is no longer (the
   * event only; its document is discarded with its iframe, so nothing is
   * left that could believe it plays, and the pause a focus change sent
   * before is already on its way).
   */
  forget(live: LiveFrame): void {
    if (!live.playing) return;
    live.playing = false;
    this.#subject.changed(live.index, false);
  }

  /** No more notifications (the feed was destroyed). */
  stop(): void {
    this.#stopped = true;
    document.removeEventListener('visibilitychange', this.#onVisibilityChange);
  }

  readonly #onVisibilityChange = (): void => {
    // A hidden tab pauses the focused template; showing it again resumes it.
    this.reconcile();
  };

  #sendPlays(): void {
    if (this.#stopped) return;
    for (const live of this.#subject.allLive()) {
      if (live.playing || !this.#wantsPlay(live)) continue;
      live.playing = true;
      this.#subject.changed(live.index, true);
      this.#playInFlight = true;
      const settled = (): void => {
        this.#playInFlight = false;
        this.#subject.playHeard();
      };
      live.frame.notify('playbackStateChanged', true).then(settled, (error: unknown) => {
        reportQuietly(error);
        settled();
      });
    }
  }

  #wantsPlay(live: LiveFrame): boolean {
    if (document.visibilityState === 'hidden' || live.status !== 'loaded') return false;
    return this.#subject.isFocused(live);
  }
}
