/**
 * `TemplateFrame`: one template iframe of another origin and the link to it.
 *
 * Handshake, host side (protocol/link.ts has the whole picture):
 *   - Listen on window 'message' before the iframe loads.
 *   - Accept a hello only when `event.source` is this iframe's window (so a
 *     second iframe cannot speak for this one) and `event.origin` is the
 *     template's origin or on `allowedOrigins` (so a frame that navigated to a
 *     foreign origin cannot). Anything else is refused and counted.
 *   - Answer that exact origin, transferring a fresh MessagePort; serve the
 *     allow-listed host surface on it and call the guest through it.
 *   - A hello with a new helloId is a reload: drop the old port (calls in
 *     flight fail with `LINK_RESET`), link the new one and let the owner
 *     re-send its state (the 'link' event).
 *   - Notifications wait in order until the guest calls ready().
 *   - Every message of the guest costs the host main-thread time and memory,
 *     so the frame holds one budget of calls and bytes per second for it
 *     (the `max…` options), charged at the door before a call reaches a
 *     handler, and kept across links (a second hello does not refill it; it
 *     is charged too). A guest that spends it is unlinked for good: its port
 *     is closed, every later message and hello is ignored, and 'unlinked'
 *     (and 'error') fire once with `RATE_LIMITED`.
 *
 * Handlers compose in layers (handler-layers.ts): the `handlers` option (or
 * setHandlers) is the base, and each addHandlers() puts a layer over it. So
 * a RemixSession attached to a frame adds the remix methods without removing
 * the owner's (a feed's load and touches, an identity handler).
 */
import { PlatformError } from '../protocol/errors.js';
import { HOST_METHODS, KIT_FRAME_NAME, NOTIFICATION_GATES, parseHello, PROTOCOL_VERSION, type GuestApi, type GuestNotification, type WelcomeMessage } from '../protocol/link.js';
import { createCallBudget, type CallBudget, type Limited } from '../protocol/call-budget.js';
import { linkPort, type Caller } from '../protocol/rpc.js';
import { PROJECT_ID_PATTERN } from '../protocol/signaling-constants.js';
import { Emitter } from './emitter.js';
import { HandlerLayers, type Gate, type HostHandlers } from './handler-layers.js';
import { limitFrame } from './frame-limits.js';
import { guardFrameFocus } from './focus-guard.js';

export type { HostHandlers } from './handler-layers.js';
export {
  DEFAULT_GUEST_LIMITS,
  type RefusedEvent,
  type TemplateFrameEvents,
  type TemplateFrameOptions,
  type TemplateFrameState,
  type UnlinkedEvent,
} from './template-frame-options.js';
import { DEFAULT_GUEST_LIMITS, type RefusedEvent, type TemplateFrameEvents, type TemplateFrameOptions, type TemplateFrameState } from './template-frame-options.js';

interface QueuedNotification {
  readonly name: GuestNotification;
  readonly args: readonly unknown[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

interface LinkState {
  readonly helloId: string;
  readonly port: MessagePort;
  readonly caller: Caller<GuestApi>;
  readonly stopServing: () => void;
}

/** One template iframe and its link. Create it, listen to 'link', call the guest; destroy() releases everything. */
export class TemplateFrame {
  /** The template's iframe. */
  readonly iframe: HTMLIFrameElement;
  /** The template's origin, from its src. */
  readonly origin: string;

  #state: TemplateFrameState = 'loading';
  readonly #openGates = new Set<Gate>();
  #refused = 0;
  #link: LinkState | null = null;
  #pageFeedSdk: boolean | null = null;
  readonly #handlers: HandlerLayers;
  readonly #queues: { readonly [G in Gate]: QueuedNotification[] } = { ready: [], load: [] };
  #linkWaiters: { resolve: () => void; reject: (error: PlatformError) => void }[] = [];
  #handshakeFailed: PlatformError | null = null;
  readonly #handshakeTimer: ReturnType<typeof setTimeout>;
  readonly #unguardFocus: () => void;
  readonly #events = new Emitter<TemplateFrameEvents>();
  readonly #acceptedOrigins: ReadonlySet<string>;
  readonly #createdIframe: boolean;
  readonly #callTimeoutMs: number;
  readonly #maxQueued: number;
  /** What the guest may still send: one budget for the frame's life, shared by its links. */
  readonly #budget: CallBudget;
  /** Set once the guest spent its budget: every later call of the owner fails with it. */
  #unlinkedWith: PlatformError | null = null;

  readonly #projectId: string | undefined;
  readonly #focusByPlayback: boolean;

  constructor(options: TemplateFrameOptions) {
    const src = new URL(options.src, location.href);
    if (src.protocol !== 'https:' && src.protocol !== 'http:') {
      throw new PlatformError('INVALID_ARGUMENT', `a template src must be an http(s) URL, not ${src.protocol}`);
    }
    if (options.allowedOrigins?.includes('*')) throw new PlatformError('INVALID_ARGUMENT', "allowedOrigins cannot hold '*'");
    if (options.projectId !== undefined && !PROJECT_ID_PATTERN.test(options.projectId)) {
      throw new PlatformError('INVALID_ARGUMENT', `projectId ${JSON.stringify(options.projectId.slice(0, 64))} is not a project id`);
    }
    this.#projectId = options.projectId;
    this.#focusByPlayback = options.focusByPlayback === true;
    this.origin = src.origin;
    this.#acceptedOrigins = new Set([src.origin, ...(options.allowedOrigins ?? [])]);
    this.#handlers = new HandlerLayers(options.handlers ?? {});
    this.#callTimeoutMs = options.callTimeoutMs ?? 5_000;
    this.#maxQueued = options.maxQueuedNotifications ?? 1_000;
    this.#budget = createCallBudget({
      maxCallsPerSecond: options.maxCallsPerSecond ?? DEFAULT_GUEST_LIMITS.maxCallsPerSecond,
      maxCallsBurst: options.maxCallsBurst ?? DEFAULT_GUEST_LIMITS.maxCallsBurst,
      maxBytesPerSecond: options.maxBytesPerSecond ?? DEFAULT_GUEST_LIMITS.maxBytesPerSecond,
      maxBytesBurst: options.maxBytesBurst ?? DEFAULT_GUEST_LIMITS.maxBytesBurst,
      maxCallBytes: options.maxCallBytes ?? DEFAULT_GUEST_LIMITS.maxCallBytes,
    });
    this.#createdIframe = options.iframe === undefined;
    this.iframe = options.iframe ?? document.createElement('iframe');
    // Before the src: a sandbox applies from the next navigation on.
    limitFrame(this.iframe, options.allow);
    if (options.title !== undefined) this.iframe.title = options.title;
    // Tells the template a host will answer its hello (protocol/link.ts); a name the host gave its own iframe stays.
    if (this.iframe.name === '') this.iframe.name = KIT_FRAME_NAME;
    this.#unguardFocus = options.guardFocus === false ? () => {} : guardFrameFocus(this.iframe);

    // Listen before the iframe can load, so the first hello is never missed.
    window.addEventListener('message', this.#onWindowMessage);
    const handshakeTimeoutMs = options.handshakeTimeoutMs ?? 10_000;
    this.#handshakeTimer = setTimeout(() => {
      if (this.#link) return;
      this.#handshakeFailed = new PlatformError('HANDSHAKE_TIMEOUT', `the template at ${this.origin} did not say hello within ${handshakeTimeoutMs} ms`);
      for (const waiter of this.#linkWaiters.splice(0)) waiter.reject(this.#handshakeFailed);
      this.#events.emit('error', this.#handshakeFailed);
    }, handshakeTimeoutMs);

    this.iframe.src = src.toString();
    options.container?.append(this.iframe);
  }

  /** Where the frame stands: loading (no link yet), linked, ready (the guest called ready()), unlinked (over its limits), destroyed. */
  get state(): TemplateFrameState {
    return this.#state;
  }

  /** Messages refused since creation (handshake and surface). */
  get refusedCount(): number {
    return this.#refused;
  }

  /** Notifications waiting for the guest's ready() or load(). */
  get queuedCount(): number {
    return this.#queues.ready.length + this.#queues.load.length;
  }

  /** Whether the current page made a FeedSdk, as it said once loaded; null until it said (or with no link). */
  get pageFeedSdk(): boolean | null {
    return this.#pageFeedSdk;
  }

  /** True once the guest called load() (FeedSdk) on the current link. */
  get loaded(): boolean {
    return this.#openGates.has('load');
  }

  /** Adds an event listener; returns its remover. */
  on<Name extends keyof TemplateFrameEvents & string>(name: Name, listener: (payload: TemplateFrameEvents[Name]) => void): () => void {
    return this.#events.on(name, listener);
  }

  /**
   * Replaces the base handlers of guest → host calls (those of the
   * `handlers` option). Layers added with {@link addHandlers} stay over them
   * until their owners remove them.
   */
  setHandlers(handlers: HostHandlers): void {
    this.#handlers.setBase(handlers);
  }

  /**
   * Adds a layer of handlers over the others: it answers the methods it has
   * (for `ready` and `load`: is called too) and leaves every other method to
   * the layers below. Returns the function that removes exactly this layer
   * (idempotent), so two owners can share one frame.
   */
  addHandlers(handlers: HostHandlers): () => void {
    return this.#handlers.add(handlers);
  }

  /** Resolves once a guest is linked; rejects with `HANDSHAKE_TIMEOUT`, `LINK_CLOSED` or `RATE_LIMITED` (unlinked). */
  whenLinked(): Promise<void> {
    if (this.#state === 'destroyed') return Promise.reject(new PlatformError('LINK_CLOSED', 'the frame was destroyed'));
    if (this.#unlinkedWith) return Promise.reject(this.#unlinkedWith);
    if (this.#link) return Promise.resolve();
    if (this.#handshakeFailed) return Promise.reject(this.#handshakeFailed);
    return new Promise((resolve, reject) => this.#linkWaiters.push({ resolve, reject }));
  }

  /** Calls the guest now (waiting for the link if there is none yet): for requests, not listener notifications. */
  async request<Name extends keyof GuestApi & string>(name: Name, ...args: Parameters<GuestApi[Name]>): Promise<Awaited<ReturnType<GuestApi[Name]>>> {
    await this.whenLinked();
    const link = this.#link;
    if (!link) throw new PlatformError('LINK_CLOSED', 'the frame has no link');
    return (await (link.caller.call as (name: string, ...rest: unknown[]) => Promise<unknown>)(name, ...args)) as Awaited<ReturnType<GuestApi[Name]>>;
  }

  /**
   * Sends a listener notification. Until the guest opens its gate (ready()
   * for remix notifications, load() for feed ones) it waits in a queue, in
   * order; a relink drops the queue (the owner re-sends state on 'link').
   */
  notify<Name extends GuestNotification>(name: Name, ...args: Parameters<GuestApi[Name]>): Promise<void> {
    if (this.#state === 'destroyed') return Promise.reject(new PlatformError('LINK_CLOSED', 'the frame was destroyed'));
    // Nothing is queued for a guest that will never be linked again.
    if (this.#unlinkedWith) return Promise.reject(this.#unlinkedWith);
    const gate = NOTIFICATION_GATES[name];
    if (this.#openGates.has(gate) && this.#link) return this.#send(this.#link, name, args);
    if (this.queuedCount >= this.#maxQueued) {
      const error = new PlatformError('QUEUE_FULL', `more than ${this.#maxQueued} notifications wait for the guest's ready()`);
      this.#events.emit('error', error);
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => this.#queues[gate].push({ name, args, resolve, reject }));
  }

  /** Releases the port, the listeners and the timers; removes the iframe if the frame created it. Idempotent. */
  destroy(): void {
    if (this.#state === 'destroyed') return;
    this.#state = 'destroyed';
    clearTimeout(this.#handshakeTimer);
    window.removeEventListener('message', this.#onWindowMessage);
    this.#unguardFocus();
    const closed = new PlatformError('LINK_CLOSED', 'the frame was destroyed');
    this.#unlink(closed);
    for (const waiter of this.#linkWaiters.splice(0)) waiter.reject(closed);
    if (this.#createdIframe) this.iframe.remove();
    this.#events.clear();
  }

  #send(link: LinkState, name: keyof GuestApi & string, args: readonly unknown[]): Promise<void> {
    // Notifications answer undefined, so the call's own promise is returned as it is: no extra hop per message.
    return link.caller.apply(name, args) as Promise<void>;
  }

  readonly #onWindowMessage = (event: MessageEvent): void => {
    // Only this iframe's window may say hello for it.
    if (event.source === null || event.source !== this.iframe.contentWindow) return;
    const hello = parseHello(event.data);
    if (!hello) return;
    // A hello costs a link (a port, the owner's state sent again): charged like a call, so a
    // guest cannot get a fresh link, or flood, by saying hello with new ids.
    if (!this.#budget.takeCall()) {
      this.#unlinkForGood({ code: 'RATE_LIMITED', exceeded: `more than ${this.#budget.limits.maxCallsPerSecond} messages a second, hellos included` });
      return;
    }
    if (!this.#acceptedOrigins.has(event.origin)) {
      this.#refuse({ code: 'ORIGIN_REFUSED', message: `a hello from ${event.origin} was refused: the template's origin is ${this.origin}` });
      return;
    }
    // The guest retries its hello until answered: the same helloId again is not a reload.
    if (this.#link?.helloId === hello.helloId) return;
    this.#linkGuest(hello.helloId, event.origin, event.source);
  };

  #linkGuest(helloId: string, origin: string, source: Window): void {
    const relinked = this.#link !== null;
    this.#unlink(new PlatformError('LINK_RESET', 'the template reloaded; the call was dropped'));
    const channel = new MessageChannel();
    const handlers: { [name: string]: (...args: unknown[]) => unknown } = {};
    for (const name of HOST_METHODS) {
      handlers[name] =
        name === 'ready' || name === 'load'
          ? () => this.#openGate(name, channel.port1)
          : name === 'pageLoaded'
            ? (feedSdk: unknown) => this.#pageLoaded(feedSdk, channel.port1)
            : (...args: unknown[]) => this.#handlers.dispatch(name, args);
    }
    const served = linkPort<GuestApi>(channel.port1, {
      allowed: HOST_METHODS,
      handlers,
      callTimeoutMs: this.#callTimeoutMs,
      onRefused: (refusal) => this.#refuse(refusal),
      budget: this.#budget,
      onLimited: (limited) => this.#unlinkForGood(limited),
    });
    channel.port1.start();
    this.#link = { helloId, port: channel.port1, caller: served.caller, stopServing: () => served.stop() };
    this.#state = 'linked';
    const welcome: WelcomeMessage = {
      type: 'platform-kit:welcome',
      version: PROTOCOL_VERSION,
      helloId,
      ...(this.#projectId === undefined ? {} : { projectId: this.#projectId }),
      ...(this.#focusByPlayback ? { focus: 'playback' } : {}),
    };
    // Answer the exact origin that said hello, never '*'.
    source.postMessage(welcome, origin, [channel.port2]);
    clearTimeout(this.#handshakeTimer);
    for (const waiter of this.#linkWaiters.splice(0)) waiter.resolve();
    this.#events.emit('link', { relinked });
  }

  /**
   * The guest's page loaded. Without a FeedSdk it counts as load() (issue 24:
   * a template of the original SDK that never made one cannot call it); with
   * one, load() stays the template's to call.
   */
  #pageLoaded(feedSdk: unknown, port: MessagePort): void {
    if (typeof feedSdk !== 'boolean') throw new PlatformError('INVALID_ARGUMENT', 'pageLoaded takes true or false');
    if (this.#link?.port !== port) return;
    this.#pageFeedSdk = feedSdk;
    if (!feedSdk) this.#openGate('load', port);
  }

  #openGate(gate: Gate, port: MessagePort): void {
    // A ready() or load() that raced a relink belongs to the old page: ignore it.
    if (this.#link?.port !== port) return;
    if (!this.#openGates.has(gate)) {
      this.#openGates.add(gate);
      if (gate === 'ready') this.#state = 'ready';
      const link = this.#link;
      for (const queued of this.#queues[gate].splice(0)) this.#send(link, queued.name, queued.args).then(queued.resolve, queued.reject);
      this.#events.emit(gate, undefined);
    }
    // Every layer hears the gate, also when it was open already.
    this.#handlers.openGate(gate);
  }

  #unlink(reason: PlatformError): void {
    const link = this.#link;
    this.#link = null;
    this.#pageFeedSdk = null;
    this.#openGates.clear();
    for (const queued of [...this.#queues.ready.splice(0), ...this.#queues.load.splice(0)]) queued.reject(reason);
    if (!link) return;
    link.stopServing();
    link.caller.close(reason);
    link.port.close();
  }

  /**
   * Drops the guest for good: it spent its budget. Called from inside the
   * port's listener (the door) or the window's; after it the port is closed,
   * no listener is left to wake, and the owner hears it once.
   */
  #unlinkForGood(limited: Limited): void {
    if (this.#unlinkedWith || this.#state === 'destroyed') return;
    const error = new PlatformError('RATE_LIMITED', `the template at ${this.origin} sent ${limited.exceeded}; it is unlinked`);
    this.#unlinkedWith = error;
    this.#state = 'unlinked';
    clearTimeout(this.#handshakeTimer);
    window.removeEventListener('message', this.#onWindowMessage);
    this.#unlink(error);
    for (const waiter of this.#linkWaiters.splice(0)) waiter.reject(error);
    this.#events.emit('unlinked', { error });
    this.#events.emit('error', error);
  }

  #refuse(refusal: RefusedEvent): void {
    this.#refused++;
    this.#events.emit('refused', refusal);
  }
}
