/**
 * An infinite feed's loader: asks it for more items when few are left after
 * the current one, one request at a time, waits a second after a failure,
 * and remembers when it said the feed has ended. Apart because its state
 * (the request in progress, its abort, the retry time, the end) is its own
 * and touches the rest of the feed only through {@link InfiniteLoaderHost}.
 */
import { PlatformError, isPlatformError } from '../../protocol/errors.js';
import type { EmitFeedEvent } from './feed-events.js';
import { checkFeedItem, type FeedItem } from './feed-items.js';
import type { FeedLoader } from './feed-options.js';

/** How long after a failed request the loader is asked again. */
const RETRY_AFTER_MS = 1_000;

/** What the loader needs of the feed. */
export interface InfiniteLoaderHost {
  readonly loadAhead: number;
  readonly emit: EmitFeedEvent;
  /** How many items the feed holds. */
  itemCount(): number;
  currentIndex(): number;
  /** Adds checked items and brings the feed in line. */
  append(items: readonly FeedItem[]): void;
  /** A request started or ended (see {@link InfiniteLoader.busy}, {@link InfiniteLoader.ended}). */
  changed(): void;
}

/** The loader's runner; see the module comment. */
export class InfiniteLoader {
  readonly #host: InfiniteLoaderHost;
  #loader: FeedLoader | null;
  #abort = new AbortController();
  #busy = false;
  #retryAtMs = 0;
  #ended = false;
  #stopped = false;

  constructor(host: InfiniteLoaderHost, loader: FeedLoader | null) {
    this.#host = host;
    this.#loader = loader;
  }

  /** True once the loader said there is nothing more. */
  get ended(): boolean {
    return this.#ended;
  }

  /** True while the loader is asked for items. */
  get busy(): boolean {
    return this.#busy;
  }

  /** Replaces the loader (null: no more loading); the feed may not have ended for the new one. */
  setLoader(loader: FeedLoader | null): void {
    this.#loader = loader;
    this.#ended = false;
  }

  /** The items were replaced: a request in progress is abandoned, and the feed has not ended. */
  restart(): void {
    this.#abort.abort();
    this.#abort = new AbortController();
    this.#busy = false;
    this.#ended = false;
  }

  /** Aborts a request in progress; asks nothing more. */
  stop(): void {
    this.#stopped = true;
    this.#abort.abort();
  }

  /** Asks the loader for more when fewer than `loadAhead` items follow the current one. */
  maybeLoadMore(): void {
    const loader = this.#loader;
    const host = this.#host;
    if (!loader || this.#busy || this.#ended || this.#stopped) return;
    if (host.itemCount() - 1 - Math.max(host.currentIndex(), 0) >= host.loadAhead) return;
    if (performance.now() < this.#retryAtMs) return;
    this.#busy = true;
    host.changed();
    const abort = this.#abort;
    const offset = host.itemCount();
    Promise.resolve()
      .then(() => loader({ offset, signal: abort.signal }))
      .then((items) => {
        if (abort.signal.aborted || this.#stopped) return;
        this.#busy = false;
        if (!Array.isArray(items)) throw new PlatformError('INVALID_ARGUMENT', 'a feed loader must return a list of items');
        if (items.length === 0) {
          this.#ended = true;
          host.changed();
          host.emit('end', undefined);
          return;
        }
        const good: FeedItem[] = [];
        for (const item of items as unknown[]) {
          try {
            good.push(checkFeedItem(item));
          } catch (error) {
            // One bad item from a loader must not lose the good ones.
            host.emit('error', { index: -1, error: error as PlatformError });
          }
        }
        host.append(good);
      })
      .catch((error: unknown) => {
        if (abort.signal.aborted || this.#stopped) return;
        this.#busy = false;
        this.#retryAtMs = performance.now() + RETRY_AFTER_MS;
        host.changed();
        const coded = isPlatformError(error) ? error : new PlatformError('INTERNAL', `the feed loader failed: ${String(error)}`, { cause: error });
        host.emit('error', { index: -1, error: coded });
      });
  }
}
