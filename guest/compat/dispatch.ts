/**
 * `platform-kit/compat/dispatch`: what a bundler alias points
 * `@withkoji/dispatch` (0.0.x) at, so that a template written for it runs
 * with no other change. Exactly what such templates call:
 *
 * - `DISPATCH_EVENT.CONNECTED` and `DISPATCH_EVENT.CONNECTED_CLIENTS_CHANGED`,
 *   heard with `on(name, handler)`: the first with `{ clientId, shardName }`
 *   once connected, the second with `{ connectedClients }` on every change of
 *   the shard's presence (the kit's `onConnectedClientsChanged`);
 * - the default export, `new Dispatch({ projectId, shardName,
 *   maxConnectionsPerShard })` (the original's `options: {…}` holder is read
 *   too), with `connect()`, `disconnect()`, `on`, `removeEventListener`,
 *   `emitEvent`, `setUserInfo`, `info()` and the getters `clientId`,
 *   `shardName`, `connectedClients`, `userInfo`, `latency`.
 *
 * Underneath is the page's `Platform.dispatch` (the kit's client, with its
 * door, mesh and relay): every `Dispatch` of a page shares that one
 * connection, and `Platform.dispatch.configure({ url })` applies to it. The
 * original's calls returned nothing and threw no rejections: a failure here
 * goes to one console warning, and the returned promise (for a template that
 * awaits it) rejects with the kit's coded `PlatformError`. Nothing runs on
 * import.
 */
import { PlatformError } from '../../protocol/errors.js';
import type { ConnectedClient, EventPayload, ShardInfo } from '../../protocol/signaling.js';
import type { BrowserDispatch } from '../dispatch/dispatch.js';
import type { ConnectionInfo, DispatchConfigurationInput, DispatchMessageMetadata } from '../dispatch/types.js';
import { Platform } from '../platform.js';

/** The original's platform event names. */
export const DISPATCH_EVENT = Object.freeze({
  CONNECTED: '@@KOJI_DISPATCH/CONNECTED',
  CONNECTED_CLIENTS_CHANGED: '@@KOJI_DISPATCH/CONNECTED_CLIENTS_CHANGED',
} as const);

/** One of {@link DISPATCH_EVENT}. */
export type DispatchEventName = (typeof DISPATCH_EVENT)[keyof typeof DISPATCH_EVENT];

/** What the original's constructor takes. */
export interface OriginalDispatchConfig {
  /** The project; empty or absent: the built `metadata.projectId`, as for `Platform.dispatch`. */
  readonly projectId?: string;
  /** A shard to join by name; without it the server places the client. */
  readonly shardName?: string | null;
  /** Capacity of a shard this client opens. Default 100. */
  readonly maxConnectionsPerShard?: number;
  /** A user token identifying this client. */
  readonly authorization?: string;
  /** The same three, where an older version took them. */
  readonly options?: { readonly shardName?: string | null; readonly maxConnectionsPerShard?: number; readonly authorization?: string };
}

/** What an `on` handler of the original receives. */
export type OriginalEventHandler = (payload: { [key: string]: unknown }, metadata?: DispatchMessageMetadata) => void;

/** The original `@withkoji/dispatch` client, over the page's `Platform.dispatch`. */
export default class Dispatch {
  readonly #client: BrowserDispatch;
  readonly #connect: DispatchConfigurationInput;
  /** This instance's listeners by event name, with their removers: the client is shared by the page. */
  readonly #handlers = new Map<string, { handler: OriginalEventHandler; off: () => void }[]>();
  #connectedClients: ConnectedClient[] = [];
  #userInfo: EventPayload = {};
  #latency = 0;

  constructor(config: OriginalDispatchConfig = {}) {
    this.#client = Platform.dispatch;
    if (typeof config.projectId === 'string' && config.projectId !== '') this.#client.setProjectId(config.projectId);
    const options = { ...config.options, ...definedOf(config) };
    const shardName = options.shardName;
    this.#connect = {
      ...(typeof shardName === 'string' && shardName !== '' ? { shardName } : {}),
      ...(options.maxConnectionsPerShard !== undefined ? { maxConnectionsPerShard: options.maxConnectionsPerShard } : {}),
      ...(options.authorization !== undefined ? { authorization: options.authorization } : {}),
    };
    // Kept for the getter from the first list on, as the original kept its last CONNECTED_CLIENTS_CHANGED.
    this.#client.onConnectedClientsChanged((clients) => {
      this.#connectedClients = clients;
    });
  }

  /** This client's id once connected, else null. */
  get clientId(): string | null {
    return this.#client.connectionInfo?.clientId ?? null;
  }

  /** The shard once connected, else null. */
  get shardName(): string | null {
    return this.#client.connectionInfo?.shardName ?? null;
  }

  /** The shard's members at the last presence change. */
  get connectedClients(): ConnectedClient[] {
    return this.#connectedClients;
  }

  /** What the last `setUserInfo` gave. */
  get userInfo(): EventPayload {
    return this.#userInfo;
  }

  /** The one-way latency of the last event heard, in ms. */
  get latency(): number {
    return this.#latency;
  }

  /** Joins a shard with the constructor's options; then `CONNECTED` handlers hear `{ clientId, shardName }`. */
  connect(): Promise<ConnectionInfo> {
    const connecting = this.#client.connect(this.#connect).then((info) => {
      for (const { handler } of this.#handlers.get(DISPATCH_EVENT.CONNECTED) ?? []) handler({ clientId: info.clientId, shardName: info.shardName });
      return info;
    });
    return reported(connecting, 'connect');
  }

  /** Leaves the shard. */
  disconnect(): Promise<void> {
    return reported(this.#client.disconnect(), 'disconnect');
  }

  /** Listens to an event, or to one of {@link DISPATCH_EVENT}. Returns the remover (the original returned nothing). */
  on(eventName: DispatchEventName | string, handler: OriginalEventHandler): () => void {
    if (typeof handler !== 'function') throw new PlatformError('INVALID_ARGUMENT', 'on() needs a handler function');
    let off: () => void;
    if (eventName === DISPATCH_EVENT.CONNECTED) off = () => undefined;
    else if (eventName === DISPATCH_EVENT.CONNECTED_CLIENTS_CHANGED) off = this.#client.onConnectedClientsChanged((connectedClients) => handler({ connectedClients }));
    else {
      off = this.#client.on(eventName, (payload, metadata) => {
        this.#latency = metadata.latencyMs;
        handler(payload, metadata);
      });
    }
    const entry = { handler, off };
    const list = this.#handlers.get(eventName) ?? [];
    list.push(entry);
    this.#handlers.set(eventName, list);
    return () => {
      entry.off();
      const remaining = (this.#handlers.get(eventName) ?? []).filter((item) => item !== entry);
      if (remaining.length > 0) this.#handlers.set(eventName, remaining);
      else this.#handlers.delete(eventName);
    };
  }

  /** Removes every handler this client added for `eventName`. */
  removeEventListener(eventName: string): void {
    for (const { off } of this.#handlers.get(eventName) ?? []) off();
    this.#handlers.delete(eventName);
  }

  /** Sends an event to the shard (or to `recipients`); one made while connecting waits for the connection. */
  emitEvent(eventName: string, payload: EventPayload, recipients?: string | readonly string[]): Promise<void> {
    return reported(this.#client.emitEvent(eventName, payload, recipients), 'emitEvent');
  }

  /** Sets this client's user info, seen in every member's `connectedClients`. */
  setUserInfo(userInfo: EventPayload): Promise<void> {
    this.#userInfo = userInfo;
    return reported(this.#client.setUserInfo(userInfo), 'setUserInfo');
  }

  /** The project's active shards. */
  info(): Promise<ShardInfo[]> {
    return reported(this.#client.info(), 'info');
  }
}

/** The config's own defined options (an explicit `undefined` does not hide `options`' value). */
function definedOf(config: OriginalDispatchConfig): NonNullable<OriginalDispatchConfig['options']> {
  const { shardName, maxConnectionsPerShard, authorization } = config;
  return {
    ...(shardName !== undefined ? { shardName } : {}),
    ...(maxConnectionsPerShard !== undefined ? { maxConnectionsPerShard } : {}),
    ...(authorization !== undefined ? { authorization } : {}),
  };
}

/**
 * The promise, with its failure also said once on the console: a template of the original drops
 * it (those calls returned nothing), and a dropped rejection must not become "Uncaught (in promise)".
 */
function reported<T>(promise: Promise<T>, method: string): Promise<T> {
  promise.catch((error: unknown) => console.warn(`platform-kit: Dispatch.${method}() of the original SDK failed:`, error));
  return promise;
}
