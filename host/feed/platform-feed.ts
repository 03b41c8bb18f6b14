/**
 * `<platform-feed>`: a full-height, snap-scrolling feed of templates, a Lit
 * element over {@link FeedController} (which does the work; see it for the
 * rules). Define it with `defineHostElements()`.
 *
 * ```html
 * <platform-feed style="height: 100dvh" actions="remix share" allow="camera; microphone; autoplay"></platform-feed>
 * <script type="module">
 *   const feed = document.querySelector('platform-feed');
 *   feed.items = [{ url: 'https://template.example/' }];
 *   feed.loader = async ({ offset }) => fetchMoreTemplates(offset);
 *   feed.getIdentityToken = createIdentityHandler({ fetchToken: () => fetch('/api/platform-token').then((r) => r.json()) });
 *   feed.addEventListener('feed-createremix', (event) => openEditor(event.detail.projectId));
 * </script>
 * ```
 *
 * Every controller event is re-dispatched as a `feed-<name>` CustomEvent
 * (bubbling, composed) with the controller's payload as `detail`.
 */
import { css, html, LitElement, type PropertyDeclarations, type PropertyValues, type ReactiveController, type ReactiveControllerHost } from 'lit';
import {
  FeedController,
  type FeedAction,
  type FeedControllerEvents,
  type FeedControllerOptions,
  type FeedLoader,
  type FeedShareData,
  type GetIdentityToken,
} from './feed-controller.js';
import { feedDebugItems, type FeedItem } from './feed-items.js';
import type { PlatformFeedEventMap } from './feed-events.js';

/** Names of the events `<platform-feed>` dispatches (each `feed-` + a controller event name). */
export const PLATFORM_FEED_EVENTS = [
  'focuschange',
  'playbackchange',
  'skip',
  'settle',
  'touch',
  'canceltouch',
  'navigate',
  'present',
  'sheetclose',
  'unframeable',
  'share',
  'createremix',
  'end',
  'error',
] as const satisfies readonly (keyof FeedControllerEvents)[];

/**
 * Holds the element's FeedController and its subscriptions (STYLE.md 7):
 * made when the element has rendered, released when it leaves the document,
 * made again when it comes back.
 */
class FeedBinding implements ReactiveController {
  controller: FeedController | null = null;
  readonly #host: PlatformFeed;
  #unsubscribe: (() => void)[] = [];

  constructor(host: PlatformFeed & ReactiveControllerHost) {
    this.#host = host;
    host.addController(this);
  }

  start(): void {
    if (this.controller) return;
    const container = this.#host.renderRoot.querySelector<HTMLElement>('.feed');
    if (!container) return;
    const controller = new FeedController(this.#host.controllerOptions(container));
    this.controller = controller;
    for (const name of PLATFORM_FEED_EVENTS) {
      this.#unsubscribe.push(controller.on(name, (detail) => this.#host.dispatchEvent(new CustomEvent(`feed-${name}`, { detail, bubbles: true, composed: true }))));
    }
    // The controller focused its first item while being made, before anyone could listen: tell it now.
    const item = controller.current;
    if (item) this.#host.dispatchEvent(new CustomEvent('feed-focuschange', { detail: { index: controller.index, item }, bubbles: true, composed: true }));
  }

  hostConnected(): void {
    // Back in the document after a move: the iframes were discarded with it, so start over.
    if (this.#host.hasUpdated) this.start();
  }

  hostDisconnected(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    this.controller?.destroy();
    this.controller = null;
  }
}

/** The `<platform-feed>` element; see the module comment. */
export class PlatformFeed extends LitElement {
  static override properties: PropertyDeclarations = {
    items: { attribute: false },
    loader: { attribute: false },
    share: { attribute: false },
    src: { type: String },
    loadTimeoutMs: { type: Number, attribute: 'load-timeout-ms' },
    frameCheckTimeoutMs: { type: Number, attribute: 'frame-check-timeout-ms' },
    templateProjectId: { type: String, attribute: 'template-project-id' },
    snapDurationMs: { type: Number, attribute: 'snap-duration-ms' },
    allow: { type: String },
    label: { type: String },
    // `actions="remix share"` in HTML (spaces or commas); a list as a property.
    actions: { attribute: 'actions', converter: { fromAttribute: (value: string | null) => (value ?? '').split(/[\s,]+/).filter((name) => name !== '') } },
    actionsRailMinWidth: { type: Number, attribute: 'actions-rail-min-width' },
    getIdentityToken: { attribute: false },
  };

  static override styles = css`
    :host {
      display: block;
      position: relative;
      height: 100%;
      min-height: 200px;
      /* Clip, not hide: a hidden overflow is a scroll container a template's scrollIntoView() can scroll. */
      overflow: hidden;
      overflow: clip;
    }
    .feed {
      position: absolute;
      inset: 0;
    }
  `;

  // Reactive properties are declared, not initialized as class fields: a
  // class field would shadow Lit's accessors. Defaults are set in the constructor.
  /** The feed's items. Setting a new list starts the feed again at its first item. */
  declare items: readonly FeedItem[];
  /** Gives more items for an infinite feed (see FeedLoader). */
  declare loader: FeedLoader | null;
  /** The system share (default: the Web Share API where there is one; null: always the feed's share sheet). Read when the feed starts. */
  declare share: ((data: FeedShareData) => Promise<void>) | null | undefined;
  /**
   * One template URL instead of `items`: with `feedDebug=true` the feed shows
   * it ten times (swipe and play/pause testing), otherwise once.
   */
  declare src: string;
  /** A template that has not called load() within this time is skipped. Default 10000. Read when the feed starts. */
  declare loadTimeoutMs: number | undefined;
  /** A navigate or present target that has not said hello within this time gets the open-in-browser offer. Default 3000. Read when the feed starts. */
  declare frameCheckTimeoutMs: number | undefined;
  /** The platform project told to every item's template (FeedControllerOptions.templateProjectId); read when the feed is made. */
  declare templateProjectId: string | undefined;
  /** Length of the snap animation. Default 250 (0 with reduced motion). Read when the feed starts. */
  declare snapDurationMs: number | undefined;
  /**
   * The permissions policy of the templates' iframes (the `allow`
   * attribute), e.g. `camera; microphone; autoplay` for templates that open
   * peer connections. Default TemplateFrame's. Only pages of an item's own
   * origin get it (see FeedControllerOptions.allow). Read when the feed starts.
   */
  declare allow: string | undefined;
  /** Accessible name of the feed. */
  declare label: string;
  /**
   * Buttons the feed draws for the current item: `remix` (the
   * `feed-createremix` event) and `share` (the system share or the share
   * sheet); the attribute lists them, `actions="remix share"`. A rail beside
   * the items on a feed at least `actionsRailMinWidth` wide, else over their
   * bottom right corner, which templates are told (see FeedControllerOptions.actions).
   */
  declare actions: readonly FeedAction[];
  /** Narrowest feed (CSS px) with a rail for its actions. Default 480. Read when the feed starts. */
  declare actionsRailMinWidth: number | undefined;
  /** Answers the templates' `Platform.identity.getToken()`, typically `createIdentityHandler({ fetchToken })` (see FeedControllerOptions.getIdentityToken). */
  declare getIdentityToken: GetIdentityToken | null;

  readonly #binding: FeedBinding;
  #appended: readonly FeedItem[] = [];

  constructor() {
    super();
    this.items = [];
    this.loader = null;
    this.share = undefined;
    this.src = '';
    this.loadTimeoutMs = undefined;
    this.frameCheckTimeoutMs = undefined;
    this.templateProjectId = undefined;
    this.snapDurationMs = undefined;
    this.allow = undefined;
    this.label = 'Templates';
    this.actions = [];
    this.actionsRailMinWidth = undefined;
    this.getIdentityToken = null;
    this.#binding = new FeedBinding(this);
  }

  /** The controller underneath (null before the first render and after the element left the document). */
  get controller(): FeedController | null {
    return this.#binding.controller;
  }

  /** Moves to the next item. */
  next(): boolean {
    return this.controller?.next() ?? false;
  }

  /** Moves to the previous item. */
  previous(): boolean {
    return this.controller?.previous() ?? false;
  }

  /** Moves to item `index`. */
  goTo(index: number): boolean {
    return this.controller?.goTo(index) ?? false;
  }

  /** Appends items to the feed (also kept in `items`, without restarting the feed). */
  appendItems(items: readonly FeedItem[]): void {
    this.controller?.append(items);
    this.#appended = [...this.#appended, ...items];
  }

  /** Closes the presented sheet. */
  closeSheet(): void {
    this.controller?.closeSheet();
  }

  /** The items the feed starts with: `items`, else those of `src`. */
  #initialItems(): readonly FeedItem[] {
    if (this.items.length > 0 || !this.src) return [...this.items, ...this.#appended];
    return feedDebugItems(this.src) ?? [{ url: this.src }];
  }

  /** Options of the controller, from the element's properties. @internal */
  controllerOptions(container: HTMLElement): FeedControllerOptions {
    const options: { -readonly [Key in keyof FeedControllerOptions]: FeedControllerOptions[Key] } = { container, items: this.#initialItems() };
    if (this.loader) options.loader = this.loader;
    if (this.share !== undefined) options.share = this.share;
    if (this.loadTimeoutMs !== undefined) options.loadTimeoutMs = this.loadTimeoutMs;
    if (this.frameCheckTimeoutMs !== undefined) options.frameCheckTimeoutMs = this.frameCheckTimeoutMs;
    if (this.templateProjectId) options.templateProjectId = this.templateProjectId;
    if (this.snapDurationMs !== undefined) options.snapDurationMs = this.snapDurationMs;
    if (typeof this.allow === 'string') options.allow = this.allow;
    if (this.actions.length > 0) options.actions = this.actions;
    if (this.actionsRailMinWidth !== undefined) options.actionsRailMinWidth = this.actionsRailMinWidth;
    if (this.getIdentityToken) options.getIdentityToken = this.getIdentityToken;
    return options;
  }

  protected override render(): unknown {
    return html`<div class="feed" part="feed"></div>`;
  }

  protected override firstUpdated(): void {
    this.#binding.start();
    this.#labelViewport();
  }

  protected override updated(changed: PropertyValues<this>): void {
    const controller = this.controller;
    if (!controller || !this.hasUpdated) return;
    if ((changed.has('items') && changed.get('items') !== undefined) || (changed.has('src') && changed.get('src') !== undefined)) {
      this.#appended = [];
      controller.setItems(this.#initialItems());
    }
    if (changed.has('loader') && changed.get('loader') !== undefined) controller.setLoader(this.loader);
    if (changed.has('actions') && changed.get('actions') !== undefined) controller.setActions(this.actions);
    if (changed.has('getIdentityToken') && changed.get('getIdentityToken') !== undefined) controller.setGetIdentityToken(this.getIdentityToken);
    if (changed.has('label')) this.#labelViewport();
  }

  /** Moves the feed by a wheel event the page heard outside it, e.g. over its margins (see FeedController.handleWheel). */
  handleWheel(event: WheelEvent): void {
    this.controller?.handleWheel(event);
  }

  override focus(options?: FocusOptions): void {
    this.controller?.viewport.focus(options);
  }

  #labelViewport(): void {
    this.controller?.viewport.setAttribute('aria-label', this.label);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'platform-feed': PlatformFeed;
  }
  interface HTMLElementEventMap extends PlatformFeedEventMap {}
}
