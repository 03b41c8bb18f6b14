/**
 * The Players pane: two to four instances of the template side by side, each its own page and
 * its own user (Platform.identity), told the same development project, so they meet in one
 * shard as players do. Each is a one-item <platform-feed>: a player sees the template as a feed
 * shows it, in focus and playing, which is when a well-made template joins its shard.
 */
import type { PlatformFeed } from 'platform-kit/host';
import type { WorkbenchLog } from './log.js';
import { frameUrl, identityFor, type WorkbenchState } from './state.js';

const MIN_PLAYERS = 2;
const MAX_PLAYERS = 4;

export class PlayersPane {
  readonly #grid: HTMLElement;
  readonly #count: HTMLOutputElement;
  readonly #state: WorkbenchState;
  readonly #log: WorkbenchLog;
  readonly #frames: { figure: HTMLElement; feed: PlatformFeed }[] = [];

  constructor(pane: HTMLElement, state: WorkbenchState, log: WorkbenchLog) {
    this.#state = state;
    this.#log = log;
    const bar = document.createElement('div');
    bar.className = 'bar';
    const fewer = button('−', 'One player fewer', () => this.#resize(this.#frames.length - 1));
    const more = button('+', 'One player more', () => this.#resize(this.#frames.length + 1));
    this.#count = document.createElement('output');
    bar.append(fewer, this.#count, more);
    this.#grid = document.createElement('div');
    this.#grid.id = 'players';
    pane.append(bar, this.#grid);
    this.#resize(MIN_PLAYERS);
  }

  #resize(count: number): void {
    const wanted = Math.min(MAX_PLAYERS, Math.max(MIN_PLAYERS, count));
    while (this.#frames.length > wanted) {
      const last = this.#frames.pop()!;
      last.figure.remove(); // a feed taken out of the page ends its frames
    }
    while (this.#frames.length < wanted) this.#add(this.#frames.length + 1);
    this.#count.textContent = `${wanted} players`;
  }

  #add(player: number): void {
    const figure = document.createElement('figure');
    const caption = document.createElement('figcaption');
    caption.textContent = `Player ${player}`;
    figure.append(caption);
    this.#grid.append(figure);
    const feed = document.createElement('platform-feed');
    feed.label = `Player ${player}`;
    feed.allow = 'camera; microphone; autoplay';
    feed.templateProjectId = this.#state.projectId;
    feed.getIdentityToken = identityFor(player);
    feed.items = [{ id: `player-${player}`, url: frameUrl(this.#state, `player-${player}`), title: `Player ${player}` }];
    const name = `player ${player}`;
    feed.addEventListener('feed-playbackchange', ({ detail }) => this.#log.add(name, detail.isPlaying ? 'playing (in focus)' : 'paused'));
    feed.addEventListener('feed-skip', ({ detail }) => this.#log.add(name, `skipped: ${detail.error.message}`));
    feed.addEventListener('feed-error', ({ detail }) => this.#log.add(name, `error: ${(detail as { error?: { message?: string } }).error?.message ?? JSON.stringify(detail)}`));
    figure.append(feed);
    this.#frames.push({ figure, feed });
  }
}

function button(text: string, label: string, onClick: () => void): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = text;
  element.setAttribute('aria-label', label);
  element.addEventListener('click', onClick);
  return element;
}
