/**
 * The guest's end of the host ↔ guest link (see protocol/link.ts for the
 * handshake). One link per page, made on first use, never on import.
 *
 * Standalone: a page that is not embedded (window.parent === window) never
 * posts a hello; a parent that never answers makes the link give up after
 * `handshakeTimeoutMs` with one debug line. Either way calls resolve as
 * no-ops and no listener fires, so a template works on its own.
 */
import { PlatformError } from '../protocol/errors.js';
import { GUEST_METHODS, newHelloId, parseWelcome, PROTOCOL_VERSION, type GuestApi, type HelloMessage, type HostApi } from '../protocol/link.js';
import { linkPort, type Caller, type Refusal } from '../protocol/rpc.js';

/** Options of the guest link; set them with {@link configureGuestLink} before first use. */
export interface GuestLinkOptions {
  /** Give up on the host (standalone) after this long without a welcome. Default 5000. */
  readonly handshakeTimeoutMs: number;
  /** A call to the host with no answer within this time fails with `CALL_TIMEOUT`. Default 5000. */
  readonly callTimeoutMs: number;
  /**
   * Host origins this template accepts a welcome from. Default: any origin,
   * because a template is made to be embedded anywhere and the hello carries
   * nothing secret; the welcome must still come from `window.parent`.
   */
  readonly allowedHostOrigins: readonly string[] | '*';
}

const DEFAULT_OPTIONS: GuestLinkOptions = { handshakeTimeoutMs: 5_000, callTimeoutMs: 5_000, allowedHostOrigins: '*' };
/** Delays between hello retries: the host may attach its listener after our first hello. */
const HELLO_RETRY_DELAYS_MS = [50, 100, 200, 400, 800, 1_600];

/** State of the link. */
export type GuestLinkState = 'connecting' | 'linked' | 'standalone';

/** Handlers the guest serves to the host; set by InstantRemixing and FeedSdk. */
export type GuestHandlers = { [Name in keyof GuestApi]?: (...args: unknown[]) => unknown };

/** The guest's link to its host. */
export class GuestLink {
  /** Where the link stands. */
  get state(): GuestLinkState {
    return this.#state;
  }
  /** Messages refused at the door since the page loaded. */
  get refusedCount(): number {
    return this.#refused;
  }

  /** The project the host named in its welcome (see WelcomeMessage.projectId), if any. */
  get hostProjectId(): string | undefined {
    return this.#hostProjectId;
  }

  /** Whether the host says when this template is in front of its viewer by playback (a feed: WelcomeMessage.focus). */
  get focusByPlayback(): boolean {
    return this.#focusByPlayback;
  }

  /** What the host last said of playback (`playbackStateChanged`): a Dispatch made after it still knows. */
  get isPlaying(): boolean {
    return this.#isPlaying;
  }

  /** Resolves once the link is made or the page runs standalone. */
  settled(): Promise<void> {
    if (this.#state !== 'connecting') return Promise.resolve();
    return new Promise<void>((resolve) => this.#waiting.push({ resolve }));
  }

  #state: GuestLinkState = 'connecting';
  #hostProjectId: string | undefined;
  #focusByPlayback = false;
  #isPlaying = false;
  #refused = 0;
  readonly #options: GuestLinkOptions;
  readonly #helloId = newHelloId();
  /**
   * Handlers per method, as arrays replaced on every change (copy on write): a
   * notification walks a plain array without copying it, and a handler added
   * or removed meanwhile takes effect from the next one.
   */
  readonly #handlers = new Map<keyof GuestApi, readonly ((...args: unknown[]) => unknown)[]>();
  readonly #waiting: { resolve: () => void }[] = [];
  #caller: Caller<HostApi> | null = null;
  #port: MessagePort | null = null;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #giveUpTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: GuestLinkOptions) {
    this.#options = options;
    if (typeof window === 'undefined' || window.parent === window) {
      this.#state = 'standalone';
      return;
    }
    window.addEventListener('message', this.#onWindowMessage);
    this.#sendHello(0);
    // Once the page has loaded, say whether it made a FeedSdk: a feed shows a template that made
    // none (it cannot know load()) and waits for load() from one that did (issue 24).
    const sayLoaded = (): void => {
      this.call('pageLoaded', feedSdkMade).catch((error: unknown) => console.debug('platform-kit: the host did not take pageLoaded', error));
    };
    if (document.readyState === 'complete') queueMicrotask(sayLoaded);
    else window.addEventListener('load', sayLoaded, { once: true });
    this.#giveUpTimer = setTimeout(() => {
      if (this.#state !== 'connecting') return;
      this.#state = 'standalone';
      clearTimeout(this.#retryTimer);
      console.debug(`platform-kit: no host answered within ${options.handshakeTimeoutMs} ms; running standalone`);
      this.#releaseWaiting();
    }, options.handshakeTimeoutMs);
  }

  /**
   * Adds a handler for a host → guest method. Several handlers of one method
   * all run (two InstantRemixing objects in one page). Returns the remover.
   */
  // A handler may also return nothing (void): the caller then answers for it.
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type
  handle<Name extends keyof GuestApi>(name: Name, handler: (...args: Parameters<GuestApi[Name]>) => ReturnType<GuestApi[Name]> | void): () => void {
    const entry = handler as (...args: unknown[]) => unknown;
    this.#handlers.set(name, [...(this.#handlers.get(name) ?? []), entry]);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      const remaining = [...(this.#handlers.get(name) ?? [])];
      const index = remaining.indexOf(entry);
      if (index !== -1) remaining.splice(index, 1);
      this.#handlers.set(name, remaining);
    };
  }

  /**
   * Calls the host. Before the link is made the call waits for it; when the
   * page runs standalone it resolves with undefined and does nothing.
   */
  call<Name extends keyof HostApi & string>(name: Name, ...args: Parameters<HostApi[Name]>): Promise<void> {
    if (this.#state === 'connecting') {
      return new Promise<void>((resolve) => this.#waiting.push({ resolve })).then(() => this.call(name, ...args));
    }
    if (this.#state === 'standalone' || !this.#caller) return Promise.resolve();
    // No async/await on the linked path: each await is a microtask hop on every round trip.
    return this.#caller.apply(name, args) as Promise<never>;
  }

  /**
   * Calls the host and returns its answer. Unlike {@link GuestLink.call},
   * there is no answer to stand in when the page runs standalone: it then
   * rejects with `NOT_EMBEDDED`.
   */
  async request<Name extends keyof HostApi & string>(name: Name, ...args: Parameters<HostApi[Name]>): Promise<Awaited<ReturnType<HostApi[Name]>>> {
    if (this.#state === 'connecting') await new Promise<void>((resolve) => this.#waiting.push({ resolve }));
    if (this.#state === 'standalone' || !this.#caller) {
      throw new PlatformError('NOT_EMBEDDED', `"${name}" needs a host, and this template runs standalone`);
    }
    return (await (this.#caller.call as (name: string, ...rest: unknown[]) => Promise<unknown>)(name, ...args)) as Awaited<ReturnType<HostApi[Name]>>;
  }

  #sendHello(attempt: number): void {
    const hello: HelloMessage = { type: 'platform-kit:hello', version: PROTOCOL_VERSION, helloId: this.#helloId };
    // The one message posted with target '*': the guest cannot know its embedder's origin, and the hello carries nothing secret.
    window.parent.postMessage(hello, '*');
    const delay = HELLO_RETRY_DELAYS_MS[attempt];
    if (delay !== undefined) this.#retryTimer = setTimeout(() => this.#state === 'connecting' && this.#sendHello(attempt + 1), delay);
  }

  readonly #onWindowMessage = (event: MessageEvent): void => {
    if (event.source !== window.parent) return;
    const welcome = parseWelcome(event.data);
    if (!welcome || welcome.helloId !== this.#helloId) return;
    const allowed = this.#options.allowedHostOrigins;
    if (allowed !== '*' && !allowed.includes(event.origin)) return;
    const port = event.ports[0];
    if (!port || event.ports.length !== 1) return;
    if (this.#port) {
      // A second welcome for the same hello (the host relinked us): the newest port wins.
      this.#caller?.close(new PlatformError('LINK_RESET', 'the host replaced the link'));
      this.#port.close();
    }
    this.#hostProjectId = welcome.projectId;
    this.#focusByPlayback = welcome.focus === 'playback';
    this.#link(port);
  };

  #link(port: MessagePort): void {
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#giveUpTimer);
    this.#port = port;
    const handlers: { [name: string]: (...args: unknown[]) => unknown } = {};
    for (const name of GUEST_METHODS) {
      handlers[name] = (...args: unknown[]) => {
        if (name === 'playbackStateChanged' && typeof args[0] === 'boolean') this.#isPlaying = args[0];
        const registered = this.#handlers.get(name);
        if (registered === undefined) return undefined;
        let result: unknown;
        for (let i = 0; i < registered.length; i++) {
          const value = (registered[i] as (...args: unknown[]) => unknown).apply(undefined, args);
          if (value !== undefined) result = value;
        }
        return result;
      };
    }
    this.#caller = linkPort<HostApi>(port, {
      allowed: GUEST_METHODS,
      handlers,
      callTimeoutMs: this.#options.callTimeoutMs,
      onRefused: (refusal: Refusal) => this.#onRefused(refusal),
    }).caller;
    port.start();
    this.#state = 'linked';
    this.#releaseWaiting();
  }

  #onRefused(refusal: Refusal): void {
    this.#refused++;
    console.warn(`platform-kit: refused a message from the host (${refusal.code}): ${refusal.message}`);
  }

  #releaseWaiting(): void {
    for (const waiter of this.#waiting.splice(0)) waiter.resolve();
  }
}

let options: GuestLinkOptions = DEFAULT_OPTIONS;
let link: GuestLink | null = null;
/** Whether the page made a FeedSdk (told to the host with pageLoaded). */
let feedSdkMade = false;

/** Called by the FeedSdk constructor: this page knows about load(). */
export function noteFeedSdk(): void {
  feedSdkMade = true;
}

/** Sets link options; only before the first InstantRemixing, FeedSdk or Platform call. */
export function configureGuestLink(overrides: Partial<GuestLinkOptions>): void {
  if (link) throw new PlatformError('UNSUPPORTED', 'configureGuestLink() must be called before the link is made');
  options = { ...options, ...overrides };
}

/** The page's link to its host, made on first use. */
export function getGuestLink(): GuestLink {
  link ??= new GuestLink(options);
  return link;
}
