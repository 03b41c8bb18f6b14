/**
 * The control WebSocket of one client: opening it with the join (in the
 * handshake when it can, one round trip), requests and their answers, the
 * heartbeat that notices a dead socket, and the reconnection's backoff and
 * choice of server node. Apart from the session because it knows sockets and
 * request ids but nothing of shards, members or events: frames that are not
 * answers go to its host, one method per type.
 */
import { deserializeError, isPlatformError, PlatformError } from '../../protocol/errors.js';
import { unreachable } from '../../protocol/exhaustive.js';
import {
  encodeHandshakeJoin,
  parseJsonObject,
  parseServerMessage,
  binaryFrameBytes,
  type EventMessage,
  type JoinedMessage,
  type JoinMessage,
  type MeshSignalFrame,
  type PresenceMessage,
  type ServerMessage,
  type StateRelayMessage,
  type StateResyncMessage,
} from '../../protocol/signaling.js';
import type { SessionOptions, SocketLike } from './types.js';

/** What the connection hands to the session: every frame that no request waits for, and the close. */
export interface ControlConnectionHost {
  onEvent(message: EventMessage): void;
  onPresence(message: PresenceMessage): void;
  /** Another member's update of the shard's state, relayed, or the server's request to sync again. */
  onState(message: StateRelayMessage | StateResyncMessage): void;
  /**
   * A `joined` answer, as it arrives: before the frames behind it. The request that waits for it
   * settles a microtask later, and where frames are dispatched in one task (Node's ws) the presence
   * changes that follow `joined` would otherwise be applied before its member list.
   */
  onJoined(message: JoinedMessage): void;
  /** A PeerJS message for this member's mesh, signalled on the control socket (mesh-signal-frames.ts). */
  onSignal(message: MeshSignalFrame): void;
  /** How many spectators watch the shard now. */
  onWatchers(count: number): void;
  /** To a spectator: a player left for good, a seat may be free. */
  onSeat(): void;
  /** An error frame no request waits for (a relayed event refused, say). */
  onServerError(error: PlatformError): void;
  /** The socket closed by itself (not by {@link ControlConnection.close}); the requests it carried failed. */
  onClose(code: number): void;
}

interface Pending {
  resolve(message: ServerMessage): void;
  reject(error: PlatformError): void;
  timer: ReturnType<typeof setTimeout>;
}

/** One client's control socket, reopened as often as the session asks. */
export class ControlConnection {
  readonly #options: SessionOptions;
  readonly #host: ControlConnectionHost;
  readonly #urls: readonly string[];
  #urlIndex = 0;
  #socket: SocketLike | null = null;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  #heartbeat: ReturnType<typeof setTimeout> | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #attempt = 0;
  /** The binary frame just received: the diff of the JSON frame that follows it (SyncStep2, protocol/state-frames.ts). One at most. */
  #attachment: Uint8Array | null = null;
  /** Fails the open() in progress, if any (see close). */
  #abandonOpen: ((error: PlatformError) => void) | null = null;

  constructor(options: SessionOptions, host: ControlConnectionHost) {
    this.#options = options;
    this.#host = host;
    this.#urls = typeof options.url === 'string' ? [options.url] : [...options.url];
    if (this.#urls.length === 0) throw new PlatformError('INVALID_CONFIG', 'at least one server URL is needed');
  }

  /** The server URL in use (or tried next). */
  get url(): string {
    return this.#urls[this.#urlIndex % this.#urls.length]!;
  }

  /** A fresh request id (a join takes one before it is sent). */
  nextId(): number {
    return this.#nextId++;
  }

  /**
   * Opens a socket to {@link url} with `join`, and settles with what `accept` makes of the
   * `joined` answer. Rejects with the server's refusal, `CALL_TIMEOUT`, or `NOT_CONNECTED` when
   * the socket closes first; a refused join closes its socket (and {@link ControlConnectionHost.onClose}
   * follows).
   */
  open<T>(join: JoinMessage, accept: (reply: JoinedMessage) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // One round trip: the join rides in the handshake and `joined` comes right behind the 101.
      // A join that cannot (a project token, too large) is sent once the socket is open.
      const protocols = encodeHandshakeJoin(join);
      let socket: SocketLike;
      try {
        socket = protocols ? this.#options.createSocket(this.url, protocols) : this.#options.createSocket(this.url);
      } catch (error) {
        reject(new PlatformError('NOT_CONNECTED', `cannot open ${this.url}: ${String(error)}`));
        return;
      }
      this.#socket = socket;
      this.#attachment = null;
      // A browser's default would be a Blob, read only asynchronously: the diff must be at hand when its JSON frame comes.
      if ('binaryType' in socket) socket.binaryType = 'arraybuffer';
      let settled = false;
      const settle = (error: PlatformError | null, value?: T): void => {
        if (settled) return;
        settled = true;
        if (this.#abandonOpen === abandon) this.#abandonOpen = null;
        if (error) reject(error);
        else resolve(value!);
      };
      const abandon = (error: PlatformError): void => settle(error);
      this.#abandonOpen = abandon;
      const finish = (answer: Promise<ServerMessage>): void => {
        answer
          .then(async (reply) => {
            if (reply.type !== 'joined') throw new PlatformError('INVALID_MESSAGE', 'the server answered join with something else');
            settle(null, await accept(reply));
          })
          .catch((error: unknown) => {
            const coded = isPlatformError(error) ? error : new PlatformError('INTERNAL', String(error));
            settle(coded);
            if (this.#socket === socket) socket.close(1000, 'join failed');
          });
      };
      // Waited for from now on: with a handshake join the answer is the first frame after `open`.
      if (protocols) finish(this.#expect(join.id));
      socket.onopen = () => {
        if (this.#socket !== socket) return;
        if (!protocols) finish(this.request(join));
      };
      socket.onmessage = (event) => {
        if (this.#socket === socket) this.#onFrame(event.data);
      };
      socket.onerror = () => {
        // The close event follows and carries the decision.
      };
      socket.onclose = (event) => {
        if (this.#socket !== socket) return;
        this.#socket = null;
        this.failPending(new PlatformError('NOT_CONNECTED', 'the connection to the server closed'));
        settle(new PlatformError('NOT_CONNECTED', `the connection to the server closed (code ${event.code})`));
        this.#host.onClose(event.code);
      };
    });
  }

  /** True while the socket is open. */
  get isOpen(): boolean {
    return this.#socket !== null && this.#socket.readyState === 1;
  }

  /** Sends a request (with a fresh id, or the one it carries) and waits for its answer. */
  request(message: JoinMessage | { type: string; [key: string]: unknown }, timeoutMs = this.#options.requestTimeoutMs ?? 10_000): Promise<ServerMessage> {
    const id = typeof message.id === 'number' ? message.id : this.#nextId++;
    const answer = this.#expect(id, message.type, timeoutMs);
    if (!this.write(JSON.stringify({ ...message, id }))) {
      const pending = this.#pending.get(id);
      if (pending) {
        clearTimeout(pending.timer);
        this.#pending.delete(id);
        pending.reject(new PlatformError('NOT_CONNECTED', 'not connected to the server'));
      }
    }
    return answer;
  }

  /** Writes a frame; false when the socket is not open. */
  write(text: string): boolean {
    const socket = this.#socket;
    if (!socket || socket.readyState !== 1) return false;
    socket.send(text);
    return true;
  }

  /** Rejects every request waiting for an answer. */
  failPending(error: PlatformError): void {
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      this.#pending.delete(id);
      pending.reject(error);
    }
  }

  /**
   * Every `intervalMs`, runs `beat` (a ping); a beat that fails means the socket is dead even if
   * the runtime has not noticed, and it is closed (so the close starts a reconnection). `beat`
   * returns null when no beat is wanted any more.
   */
  startHeartbeat(intervalMs: number, beat: () => Promise<void> | null): void {
    clearTimeout(this.#heartbeat);
    this.#heartbeat = setTimeout(() => {
      const socket = this.#socket;
      const beating = beat();
      if (beating === null) return;
      beating.then(
        () => this.startHeartbeat(intervalMs, beat),
        () => {
          // No pong within an interval: the socket is dead even if the browser has not noticed.
          if (this.#socket === socket && socket) socket.close(4001, 'heartbeat timeout');
        },
      );
    }, intervalMs);
    (this.#heartbeat as { unref?: () => void }).unref?.();
  }

  stopHeartbeat(): void {
    clearTimeout(this.#heartbeat);
  }

  /** The next attempt starts from the first delay again (a join succeeded, or a new connect). */
  resetBackoff(): void {
    this.#attempt = 0;
  }

  /**
   * Calls `attempt` after the next delay of the backoff (doubling per attempt from
   * `reconnectInitialDelayMs` up to `reconnectMaxDelayMs`, jittered), on the next server node when
   * there are several. Nothing happens when `wanted` says no by then.
   */
  retry(wanted: () => boolean, attempt: () => void): void {
    const cap = this.#options.reconnectMaxDelayMs ?? 30_000;
    const base = Math.min(cap, (this.#options.reconnectInitialDelayMs ?? 250) * 2 ** Math.min(this.#attempt, 20));
    // Full jitter on the upper half: a server restart is not met by every client at the same instant.
    const delay = base / 2 + Math.random() * (base / 2);
    this.#attempt++;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      if (!wanted()) return;
      // Many nodes: every attempt tries the next one (its node may be the one that died).
      if (this.#urls.length > 1) this.#urlIndex = (this.#urlIndex + 1) % this.#urls.length;
      attempt();
    }, delay);
  }

  /**
   * Ends the socket (without telling the host), the heartbeat and any retry. An open() still in
   * progress rejects `NOT_CONNECTED`: its socket's events are no longer heard, so nothing else
   * would settle it (a join not sent yet has no request to fail).
   */
  close(): void {
    clearTimeout(this.#heartbeat);
    clearTimeout(this.#retryTimer);
    const abandon = this.#abandonOpen;
    this.#abandonOpen = null;
    abandon?.(new PlatformError('NOT_CONNECTED', 'the connection was closed before the server answered the join'));
    const socket = this.#socket;
    this.#socket = null;
    if (socket) {
      socket.onclose = socket.onmessage = socket.onopen = null;
      socket.onerror = () => {};
      try {
        socket.close(1000, 'disconnect');
      } catch {
        // Closing a socket that is still connecting throws in some engines; it is being dropped anyway.
      }
    }
  }

  /** Test hook: drops the socket as a network failure would (no leave, no close handshake awaited). */
  dropForTest(): void {
    this.#socket?.close(4000, 'test drop');
  }

  /** Waits for the answer with `id` (`CALL_TIMEOUT` after `timeoutMs`). */
  #expect(id: number, what = 'join', timeoutMs = this.#options.requestTimeoutMs ?? 10_000): Promise<ServerMessage> {
    return new Promise<ServerMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new PlatformError('CALL_TIMEOUT', `no answer to ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
    });
  }

  /** The door of the control socket: anything the guard does not accept is dropped, never acted on. */
  #onFrame(data: unknown): void {
    const bytes = binaryFrameBytes(data);
    // Held for the next frame, which claims it or drops it: never more than one, never applied alone.
    if (bytes !== null) {
      this.#attachment = bytes;
      return;
    }
    const attachment = this.#attachment;
    this.#attachment = null;
    const message = parseServerMessage(parseJsonObject(typeof data === 'string' ? data : String(data)), attachment);
    if (message === null) return; // a server bug or a hostile proxy
    switch (message.type) {
      case 'event':
        return this.#host.onEvent(message);
      case 'presence':
        return this.#host.onPresence(message);
      case 'watchers':
        return this.#host.onWatchers(message.count);
      case 'seat':
        return this.#host.onSeat();
      case 'state':
      case 'stateResync':
        return this.#host.onState(message);
      case 'signal':
        return this.#host.onSignal(message);
      case 'error': {
        const error = deserializeError(message.error);
        const pending = message.id !== undefined ? this.#pending.get(message.id) : undefined;
        if (pending && message.id !== undefined) {
          clearTimeout(pending.timer);
          this.#pending.delete(message.id);
          return pending.reject(error);
        }
        return this.#host.onServerError(error);
      }
      // The answers to a request, by its id.
      case 'joined':
      case 'ok':
      case 'info':
      case 'pong':
      case 'stateSynced': {
        const pending = this.#pending.get(message.id);
        if (!pending) return;
        if (message.type === 'joined') this.#host.onJoined(message);
        clearTimeout(pending.timer);
        this.#pending.delete(message.id);
        return pending.resolve(message);
      }
      default:
        // A frame type added to ServerMessage without its case here is a compile error.
        return unreachable(message, 'server frame');
    }
  }
}
