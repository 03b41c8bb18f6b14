// Helpers for the signaling tests: a real server on port 0 and raw ws clients
// that speak the wire by hand (so tests can also send what no client would).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket, type ClientOptions } from 'ws';
import { createSignalingServer, PlatformBackend, type SignalingServer, type SignalingServerOptions } from '../../signaling/index.js';
import { controlUrl } from '../../signaling/backend-dispatch.js';
import type { ShardStore } from '../../signaling/store/store.js';
import { DispatchSession } from '../../guest/dispatch/session.js';
import type { SocketLike } from '../../guest/dispatch/types.js';

export const PROJECT = 'demo';
export const TOKEN = 'demo-project-token';
export const SECRET = 'a-test-identity-secret-of-at-least-32-bytes';
export const ADMIN_KEY = 'signaling-test-admin-key';

/** A server on a free port with its state in a throwaway directory, deleted by `close()`. */
export async function startServer(options: Partial<SignalingServerOptions> = {}): Promise<SignalingServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'platform-signaling-'));
  const server = createSignalingServer({
    port: 0,
    host: '127.0.0.1',
    projects: { [PROJECT]: TOKEN, other: 'other-token' },
    identity: { keys: [{ kid: 'k1', secret: SECRET }] },
    adminKey: ADMIN_KEY,
    ...options,
    dataDir,
  });
  await server.ready;
  const close = server.close.bind(server);
  return Object.assign(Object.create(server) as SignalingServer, {
    close: async () => {
      await close();
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

export function backend(server: { url: string } | string, extra: Record<string, unknown> = {}) {
  return new PlatformBackend.Dispatch({ projectId: PROJECT, projectToken: TOKEN, url: typeof server === 'string' ? server : server.url, ...extra });
}

export type Frame = Record<string, unknown> & { type: string };

/** A raw control socket: records frames, waits for one that matches. */
export class Raw {
  readonly frames: Frame[] = [];
  readonly ws: WebSocket;
  #waiters: { test: (frame: Frame) => boolean; resolve: (frame: Frame) => void }[] = [];
  #nextId = 1;
  readonly opened: Promise<void>;
  closed = false;
  /** The close code once closed (4029: refused too often; 4001: join refused; 1006: terminated). */
  closeCode: number | undefined;

  /**
   * `protocols`: the subprotocols to offer (a v2 join in the handshake, see encodeHandshakeJoin).
   * `options`: more ws client options (`localAddress: '127.0.0.7'` joins from another loopback address, `headers`).
   */
  constructor(url: string, protocols: readonly string[] = [], options: ClientOptions = {}) {
    this.ws = new WebSocket(controlUrl(url), [...protocols], { perMessageDeflate: false, ...options });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.ws.on('close', (code) => {
      this.closed = true;
      this.closeCode = code;
    });
    this.ws.on('message', (data, isBinary) => {
      // The one binary frame of the wire, SyncStep2's diff (protocol/state-frames.ts), is recorded as a frame of its own.
      const frame = isBinary ? { type: 'binary', bytes: new Uint8Array(data as Buffer) } : (JSON.parse(String(data)) as Frame);
      this.frames.push(frame);
      for (const waiter of [...this.#waiters]) {
        if (waiter.test(frame)) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          waiter.resolve(frame);
        }
      }
    });
  }

  send(frame: Record<string, unknown> | string): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Sends a request with a fresh id and waits for the answer with that id. */
  async request(frame: Record<string, unknown>, timeoutMs = 5_000): Promise<Frame> {
    const id = this.#nextId++;
    const answer = this.next((f) => f['id'] === id, timeoutMs);
    this.send({ ...frame, id });
    return answer;
  }

  next(test: (frame: Frame) => boolean, timeoutMs = 5_000): Promise<Frame> {
    const seen = this.frames.find(test);
    if (seen) {
      this.frames.splice(this.frames.indexOf(seen), 1);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames.slice(-5))}`)), timeoutMs);
      this.#waiters.push({
        test,
        resolve: (frame) => {
          clearTimeout(timer);
          this.frames.splice(this.frames.indexOf(frame), 1);
          resolve(frame);
        },
      });
    });
  }

  /** Joins; `timeoutMs` bounds the wait for the answer (a burst of a thousand joins on a busy machine wants more than the default). */
  async join(extra: Record<string, unknown> = {}, timeoutMs?: number): Promise<Frame> {
    await this.opened;
    return this.request({ type: 'join', v: 1, projectId: PROJECT, kind: 'browser', ...extra }, timeoutMs);
  }

  close(): void {
    this.ws.terminate();
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function waitFor(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

export async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

const errorCode = (frame: Frame): string | undefined => (frame['error'] as { code?: string } | undefined)?.code;

/**
 * Emits `count` events at once (seq from `firstSeq`); resolves the seqs refused RATE_LIMITED.
 * The last one sent is refused whenever any is (a bucket does not refill within a burst), and
 * answers come in order: once its answer is here, every answer is.
 */
export async function flood(sender: Raw, firstSeq: number, count: number): Promise<number[]> {
  for (let i = 0; i < count; i++) sender.send({ type: 'emit', seq: firstSeq + i, name: 'flood', payload: { i }, ts: 0 });
  const last = await sender.next((f) => f.type === 'error' && f['seq'] === firstSeq + count - 1);
  const refused = sender.frames.filter((f) => f.type === 'error' && errorCode(f) === 'RATE_LIMITED' && (f['seq'] as number) >= firstSeq);
  return [...refused, ...(errorCode(last) === 'RATE_LIMITED' ? [last] : [])].map((f) => f['seq'] as number);
}

/** A store's methods (own and inherited) bound to it, to build a store that differs in one method. */
export function bindStore(store: ShardStore): ShardStore {
  const bound: Record<string, unknown> = {};
  for (let at: object | null = store; at && at !== Object.prototype; at = Object.getPrototypeOf(at) as object | null) {
    for (const key of Object.getOwnPropertyNames(at)) {
      if (key === 'constructor' || key in bound) continue;
      const value = (store as unknown as Record<string, unknown>)[key];
      bound[key] = typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(store) : value;
    }
  }
  return bound as unknown as ShardStore;
}

/** A browser-kind DispatchSession (the client `Platform.dispatch` and the backend share) on the server at `serverUrl`, over Node's ws. */
export function browserSession(serverUrl: string): DispatchSession {
  return new DispatchSession({
    url: controlUrl(serverUrl),
    projectId: PROJECT,
    kind: 'browser',
    createSocket: (target, protocols = []) => new WebSocket(target, [...protocols], { perMessageDeflate: false }) as unknown as SocketLike,
  });
}

/** The sessions and raw sockets a suite opens, each on the server URL given (default: `defaultUrl()`), all closed by `close()`. */
export function clientPool(
  defaultUrl: () => string = () => {
    throw new Error('clientPool: no server URL');
  },
) {
  const sessions: DispatchSession[] = [];
  const sockets: Raw[] = [];
  return {
    open(serverUrl = defaultUrl()): DispatchSession {
      const made = browserSession(serverUrl);
      sessions.push(made);
      return made;
    },
    raw(serverUrl = defaultUrl()): Raw {
      const socket = new Raw(serverUrl);
      sockets.push(socket);
      return socket;
    },
    async close(): Promise<void> {
      await Promise.all(sessions.splice(0).map((session) => session.disconnect().catch(() => undefined)));
      for (const socket of sockets.splice(0)) socket.close();
    },
  };
}
