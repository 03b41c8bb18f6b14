/**
 * The mesh path: one ordered, reliable WebRTC data channel per pair of
 * browser members, through peerjs and the server's PeerJS signaling.
 *
 * - Who calls whom: the member with the smaller peer id opens the connection
 *   and the other waits for it. Both read the same presence list, so exactly
 *   one offer is made per pair and offers never cross (no glare to resolve).
 * - A call from a member not known yet is held, not refused: the caller
 *   learnt of us from its `joined` list and called at once, while its own
 *   arrival is still on its way to us as presence (coalesced, and through
 *   Redis when the two are on different nodes). Refused, the pair would never
 *   have met and stayed on the relay. At most {@link MAX_HELD_CALLS} calls
 *   are held, each until its member shows up or `p2pTimeoutMs` ends; frames
 *   that come on a held call's channel wait with it, in order (bounded: past
 *   {@link MAX_HELD_FRAMES} the call is closed, and the caller resends what
 *   it holds unacknowledged by the relay). The server forwards signaling
 *   only within a shard, so a held caller is a member of ours.
 * - Failure: a pair that is not open within `p2pTimeoutMs` (default 10 s),
 *   or whose ICE state turns `failed`, or whose channel closes, stays on the
 *   relay. The session relays to a member until its channel is open, so the
 *   application sees no gap either way.
 * - Nothing in flight is lost: a receiver acknowledges the frames of each
 *   channel (every {@link ACK_EVERY} frames, or {@link ACK_DELAY_MS} after the
 *   first one not yet acknowledged), and the sender keeps each frame until it
 *   is. When a channel dies, or the pair leaves the mesh while the member
 *   stays, the frames still open go to the session, which resends them by the
 *   relay to that member (receivers drop the ones they had, by seq). A
 *   receiver that does not acknowledge {@link MAX_UNACKED_FRAMES} frames (or
 *   {@link MAX_UNACKED_CHARS} characters of them) loses the pair the same way:
 *   what it holds up is bounded.
 * - A guard at the door of each channel: the server never sees mesh traffic,
 *   so the receiver holds each peer to the shard's limits itself. Every frame
 *   takes a token from a bucket twice as generous as the sender's own (burst
 *   4× and refill 2× `maxEventsPerSecond`, so network bunching of an honest
 *   stream never trips it), and a frame over the payload limit plus the
 *   envelope is refused. A channel that breaks either rule is closed and the
 *   pair moves to the relay, where the server polices it; the application
 *   hears `RATE_LIMITED` or `PAYLOAD_TOO_LARGE` on its error listeners. The
 *   refused frame is not acknowledged, so an honest sender resends it by the
 *   relay. Frames of an unknown type are ignored (a newer peer may send
 *   some), but they pay their token too.
 * - Mesh size: above `meshMaxMembers` browser members the transport closes
 *   its connections and everything goes through the relay, so no page holds
 *   99 peer connections.
 * - Chrome lets a page create 500 RTCPeerConnections in its lifetime; a
 *   page-wide budget (default 400, shared by every client in the page) keeps
 *   churn from reaching that. When it is spent, the page leaves the mesh (its
 *   peer socket closes, so nobody's offer makes it create more) and relays.
 * - peerjs is loaded on first use (dynamic import): a template that never
 *   meshes never downloads it.
 */
import type { DataConnection, Peer } from 'peerjs';
import { PlatformError } from '../../protocol/errors.js';
import { FRAME_ENVELOPE_BYTES, PEER_ACK_PREFIX, PEERJS_KEY, PEERJS_PATH, parsePeerAck, peerAckFrame, peerEventFrame, type MemberWire } from '../../protocol/signaling.js';
import { TokenBucket } from './token-bucket.js';
import type { PeerTransport, PeerTransportFactory, PeerTransportHost, PeerTransportInit } from './transport.js';

/** Options of the mesh. */
export interface PeerTransportOptions {
  /** A pair not open within this falls back to the relay. Default 10,000 ms. */
  readonly p2pTimeoutMs?: number;
  /** ICE servers (STUN/TURN). Default: Google's public STUN server. */
  readonly iceServers?: readonly RTCIceServer[];
  /** RTCPeerConnections this page may create in its lifetime (Chrome's limit is 500). Default 400. */
  readonly peerConnectionBudget?: number;
  /** Lowers the server's mesh size for this client (never raises it). */
  readonly meshMaxMembers?: number;
  /**
   * Test hook: gather no ICE candidates (relay-only policy with no TURN server), so every pair
   * of this client fails ICE and falls back to the relay. Only for tests of that path.
   */
  readonly blockIceCandidates?: boolean;
  /**
   * Loads peerjs's `Peer` class. Default: `import('peerjs')` (bundlers resolve it). Give one to
   * load peerjs's prebuilt browser bundle instead, e.g. where no bundler handles its CommonJS deps.
   */
  readonly loadPeerJs?: () => Promise<typeof Peer>;
}

const BUDGET_KEY = Symbol.for('platform-kit.rtc-peer-connections');

/** RTCPeerConnections made by Platform Kit in this page so far (shared across copies of the library). */
export function peerConnectionsCreated(): number {
  return (globalThis as { [BUDGET_KEY]?: number })[BUDGET_KEY] ?? 0;
}
function spendPeerConnection(): void {
  const holder = globalThis as { [BUDGET_KEY]?: number };
  holder[BUDGET_KEY] = (holder[BUDGET_KEY] ?? 0) + 1;
}

interface Link {
  readonly clientId: string;
  readonly peerId: string;
  state: 'connecting' | 'open' | 'failed';
  connection: DataConnection | null;
  /** The connection's data channel once open: events go on it directly (see sendTo). */
  channel: RTCDataChannel | null;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Events sent on the channel and not acknowledged yet, oldest first: seqs and bodies in step. */
  sentSeqs: number[];
  sentBodies: string[];
  /** Characters of `sentBodies`. */
  sentChars: number;
  /** Highest seq received on the channel; `ackOwed` frames of it not acknowledged yet. */
  receivedSeq: number;
  ackOwed: number;
  ackTimer: ReturnType<typeof setTimeout> | undefined;
  /** An acknowledgement is queued as a microtask (see #received). */
  ackQueued: boolean;
  /** The door's bucket for frames from this peer (see the header). */
  readonly inbound: TokenBucket;
}

/** A receiver acknowledges after this many frames of a channel… */
const ACK_EVERY = 32;
/** …or this long after the first frame not yet acknowledged, whichever comes first. */
const ACK_DELAY_MS = 50;
/**
 * Unacknowledged frames (or characters of them) a sender keeps for one pair before it gives the
 * pair up. A live receiver owes at most about ACK_DELAY_MS of frames plus a round trip; 128 is
 * over a second of the default 100 events/s, and well within the server's default burst of 200
 * relayed events, so their resend is not refused.
 */
const MAX_UNACKED_FRAMES = 128;
const MAX_UNACKED_CHARS = 4 * 1024 * 1024;
/** The door's bucket, in multiples of `maxEventsPerSecond`: its size, and its refill per second. */
const INBOUND_BURST = 4;
const INBOUND_REFILL = 2;
/** Calls held until their member is known, and the frames one may bring meanwhile (see the header). */
const MAX_HELD_CALLS = 16;
const MAX_HELD_FRAMES = 256;

/** A call from a peer id that no member of ours has yet, as far as we know. */
interface HeldCall {
  readonly connection: DataConnection;
  readonly timer: ReturnType<typeof setTimeout>;
  /** Frames its channel brought before the member was known, in order. */
  readonly frames: unknown[];
}

/** peerjs's `DataConnection.MAX_BUFFERED_AMOUNT` (protected): above it, peerjs holds frames back itself. */
const PEERJS_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/** Makes the factory the session calls once it has a peer id. */
export function peerTransport(options: PeerTransportOptions = {}): PeerTransportFactory {
  return (init, host) => new MeshTransport(init, host, options);
}

class MeshTransport implements PeerTransport {
  readonly #init: PeerTransportInit;
  readonly #host: PeerTransportHost;
  readonly #options: PeerTransportOptions;
  readonly #links = new Map<string, Link>();
  readonly #byPeer = new Map<string, string>();
  /** Calls from peer ids not known yet, by peer id. */
  readonly #held = new Map<string, HeldCall>();
  #peer: Peer | null = null;
  #open = false;
  #closed = false;
  #members: readonly MemberWire[] = [];
  #self = '';

  constructor(init: PeerTransportInit, host: PeerTransportHost, options: PeerTransportOptions) {
    this.#init = init;
    this.#host = host;
    this.#options = options;
    void this.#start();
  }

  async #start(): Promise<void> {
    let PeerClass: typeof Peer;
    try {
      PeerClass = this.#options.loadPeerJs ? await this.#options.loadPeerJs() : (await import('peerjs')).Peer;
    } catch (error) {
      console.warn('platform-kit: peerjs could not be loaded; every event goes through the relay', error);
      return;
    }
    if (this.#closed || this.#budgetSpent()) return;
    const url = new URL(this.#init.url);
    const secure = url.protocol === 'wss:';
    const config: RTCConfiguration = this.#options.blockIceCandidates
      ? { iceServers: [], iceTransportPolicy: 'relay' }
      : { iceServers: [...(this.#options.iceServers ?? [{ urls: 'stun:stun.l.google.com:19302' }])] };
    const peer = new PeerClass(this.#init.peerId, {
      host: url.hostname,
      port: url.port ? Number(url.port) : secure ? 443 : 80,
      path: PEERJS_PATH,
      key: PEERJS_KEY,
      // The token the server bound to our peer id; it travels in the peer socket's URL as peerjs
      // requires. It is a per-connection secret, not the project token.
      token: this.#init.peerToken,
      secure,
      config,
      debug: 0,
    });
    this.#peer = peer;
    peer.on('open', () => {
      this.#open = true;
      this.#reconcile();
    });
    peer.on('connection', (connection) => this.#accept(connection));
    peer.on('disconnected', () => {
      // The peer socket dropped; open channels keep working. Reconnect for new pairs.
      if (!this.#closed && !peer.destroyed) setTimeout(() => !this.#closed && !peer.destroyed && peer.reconnect(), 1_000);
    });
    peer.on('error', (error) => {
      // Per-pair failures also end in a close or the timeout; these are the transport-wide ones.
      if (error.type === 'unavailable-id' || error.type === 'invalid-id' || error.type === 'browser-incompatible' || error.type === 'ssl-unavailable') {
        this.close();
      }
    });
  }

  reaches(clientId: string): boolean {
    return this.#links.get(clientId)?.state === 'open';
  }

  sendTo(clientId: string, seq: number, prev: number, body: string): boolean {
    const link = this.#links.get(clientId);
    const connection = link?.connection;
    const channel = link?.channel;
    if (link?.state !== 'open' || !connection || !channel) return false;
    // The body is serialized once per event; each channel gets its own `prev` in front.
    const text = peerEventFrame(prev, body);
    // Straight onto the channel, which is what peerjs's send (serialization 'raw') does when it
    // holds nothing back, minus its three calls. When it does hold frames back (the channel's
    // buffer was over its limit), this one queues behind them through peerjs, in order.
    if (((connection as { readonly bufferSize?: number }).bufferSize ?? 0) === 0 && channel.bufferedAmount <= PEERJS_MAX_BUFFERED_BYTES) {
      try {
        // The browser's own send: peerjs's webrtc-adapter wraps each channel's `send` in a size
        // check that reads two more native properties per frame, and the browser checks the size
        // itself (a TypeError, caught below).
        (RTCDataChannel.prototype.send as (this: RTCDataChannel, data: string) => void).call(channel, text);
      } catch {
        // A channel that is closing ends this pair; either way the session relays this event
        // (its `prev` keeps the receiver's order across the two paths).
        if (channel.readyState !== 'open') this.#fail(link);
        return false;
      }
    } else {
      void connection.send(text);
    }
    // Kept until the receiver acknowledges it (see the header).
    link.sentSeqs.push(seq);
    link.sentBodies.push(body);
    link.sentChars += body.length;
    if (link.sentSeqs.length > MAX_UNACKED_FRAMES || link.sentChars > MAX_UNACKED_CHARS) this.#fail(link);
    return true;
  }

  setMembers(members: readonly MemberWire[], selfClientId: string): void {
    this.#members = members;
    this.#self = selfClientId;
    this.#reconcile();
  }

  paths(): Record<string, 'peer' | 'connecting' | 'relay'> {
    const result: Record<string, 'peer' | 'connecting' | 'relay'> = {};
    for (const link of this.#links.values()) result[link.clientId] = link.state === 'open' ? 'peer' : link.state === 'connecting' ? 'connecting' : 'relay';
    return result;
  }

  close(handOver = false): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const link of this.#links.values()) {
      if (handOver) this.#handOver(link);
      this.#drop(link);
    }
    this.#links.clear();
    this.#byPeer.clear();
    for (const peerId of [...this.#held.keys()]) this.#dropHeld(peerId);
    this.#peer?.destroy();
    this.#peer = null;
  }

  #meshSize(): number {
    return Math.min(this.#init.meshMaxMembers, this.#options.meshMaxMembers ?? Number.POSITIVE_INFINITY);
  }

  #budgetSpent(): boolean {
    return peerConnectionsCreated() >= (this.#options.peerConnectionBudget ?? 400);
  }

  #reconcile(): void {
    if (this.#closed) return;
    const browsers = this.#members.filter((member) => member.peerId !== null);
    const wanted = browsers.length <= this.#meshSize() ? browsers.filter((member) => member.clientId !== this.#self) : [];
    const wantedIds = new Set(wanted.map((member) => member.clientId));
    for (const link of [...this.#links.values()]) {
      const member = wanted.find((m) => m.clientId === link.clientId);
      if (!wantedIds.has(link.clientId) || member?.peerId !== link.peerId) {
        // Past the mesh size, or the member has a new peer id: it is still here and gets by the relay
        // what this channel did not deliver. A member who left gets nothing more.
        if (this.#members.some((m) => m.clientId === link.clientId)) this.#handOver(link);
        this.#drop(link);
        this.#links.delete(link.clientId);
        this.#byPeer.delete(link.peerId);
      }
    }
    if (!this.#open || !this.#peer) return;
    for (const member of wanted) {
      if (this.#links.has(member.clientId) || member.peerId === null) continue;
      const link: Link = {
        clientId: member.clientId,
        peerId: member.peerId,
        state: 'connecting',
        connection: null,
        channel: null,
        timer: undefined,
        sentSeqs: [],
        sentBodies: [],
        sentChars: 0,
        receivedSeq: 0,
        ackOwed: 0,
        ackTimer: undefined,
        ackQueued: false,
        inbound: new TokenBucket(this.#init.maxEventsPerSecond * INBOUND_BURST, performance.now()),
      };
      this.#links.set(member.clientId, link);
      this.#byPeer.set(member.peerId, member.clientId);
      link.timer = setTimeout(() => this.#fail(link), this.#options.p2pTimeoutMs ?? 10_000);
      if (this.#init.peerId < member.peerId) {
        if (this.#budgetSpent()) {
          this.#leaveMesh();
          return;
        }
        spendPeerConnection();
        this.#bind(link, this.#peer.connect(member.peerId, { reliable: true, serialization: 'raw' }));
        continue;
      }
      // It may have called already, before its arrival reached us.
      const held = this.#held.get(member.peerId);
      if (held) {
        this.#held.delete(member.peerId);
        clearTimeout(held.timer);
        spendPeerConnection();
        this.#bind(link, held.connection, held.frames);
        if (this.#budgetSpent()) {
          this.#leaveMesh();
          return;
        }
      }
    }
  }

  #accept(connection: DataConnection): void {
    const clientId = this.#byPeer.get(connection.peer);
    if (clientId === undefined && !this.#members.some((member) => member.peerId === connection.peer)) return this.#hold(connection);
    const link = clientId === undefined ? undefined : this.#links.get(clientId);
    // Only a current member we wait for may call; the server already keeps strangers out.
    if (!link || link.state !== 'connecting' || link.connection || this.#init.peerId < link.peerId) {
      connection.close();
      return;
    }
    spendPeerConnection();
    this.#bind(link, connection);
    if (this.#budgetSpent()) this.#leaveMesh();
  }

  /** Holds a call from a peer id we do not know yet (see the header). */
  #hold(connection: DataConnection): void {
    const peerId = connection.peer;
    if (!this.#held.has(peerId) && this.#held.size >= MAX_HELD_CALLS) {
      connection.close();
      return;
    }
    this.#dropHeld(peerId); // a newer call from the same peer replaces the one held
    const held: HeldCall = { connection, timer: setTimeout(() => this.#dropHeld(peerId, held), this.#options.p2pTimeoutMs ?? 10_000), frames: [] };
    this.#held.set(peerId, held);
    connection.on('open', () => {
      if (this.#held.get(peerId) !== held) return;
      connection.dataChannel.onmessage = (event: MessageEvent<unknown>) => {
        if (held.frames.length < MAX_HELD_FRAMES) held.frames.push(event.data);
        else this.#dropHeld(peerId, held);
      };
    });
    connection.on('close', () => this.#dropHeld(peerId, held));
  }

  /** Closes the held call of `peerId` (only `which`, when given). */
  #dropHeld(peerId: string, which?: HeldCall): void {
    const held = this.#held.get(peerId);
    if (!held || (which && held !== which)) return;
    this.#held.delete(peerId);
    clearTimeout(held.timer);
    held.connection.close();
  }

  /** `early`: frames a held call brought before it was bound, handled first, in order. */
  #bind(link: Link, connection: DataConnection, early: readonly unknown[] = []): void {
    link.connection = connection;
    const onOpen = (): void => {
      if (link.connection !== connection || link.state !== 'connecting') return;
      clearTimeout(link.timer);
      // Frames are read from the channel itself, and peerjs's own work per frame is dropped: its
      // `onmessage` only logs (a string built per frame), and its listener re-emits the frame as
      // 'data' through its event emitter, which nobody here listens to. Set in the channel's open
      // event, so before the first frame.
      const channel = connection.dataChannel;
      const onMessage = (text: unknown): void => {
        if (link.connection !== connection) return;
        if (!this.#admit(link, text)) return;
        if (typeof text !== 'string') return;
        if (text.startsWith(PEER_ACK_PREFIX)) {
          const seq = parsePeerAck(text);
          if (seq !== null) this.#acknowledged(link, seq);
          return;
        }
        const seq = this.#host.onFrame(link.clientId, text);
        if (seq > link.receivedSeq) this.#received(link, seq);
      };
      channel.onmessage = (event: MessageEvent<unknown>) => onMessage(event.data);
      if ('_handleDataMessage' in connection) (connection as unknown as { _handleDataMessage: () => void })._handleDataMessage = () => {};
      link.channel = channel;
      link.state = 'open';
      for (const text of early) onMessage(text);
    };
    // A held call may have opened already.
    if (connection.open) onOpen();
    else connection.on('open', onOpen);
    connection.on('close', () => {
      if (link.connection === connection) this.#fail(link);
    });
    connection.on('error', () => {
      if (link.connection === connection) this.#fail(link);
    });
    connection.on('iceStateChanged', (state) => {
      if (state === 'failed' && link.connection === connection) this.#fail(link);
    });
  }

  /** The pair stays on the relay from now on (until the member leaves and comes back); what it did not deliver goes there too. */
  #fail(link: Link): void {
    if (link.state === 'failed') return;
    link.state = 'failed';
    this.#handOver(link);
    this.#drop(link);
  }

  /** Hands the frames the member has not acknowledged to the session, which relays them. */
  #handOver(link: Link): void {
    if (link.sentSeqs.length === 0) return;
    const seqs = link.sentSeqs;
    const bodies = link.sentBodies;
    link.sentSeqs = [];
    link.sentBodies = [];
    link.sentChars = 0;
    this.#host.onUndelivered(link.clientId, seqs, bodies);
  }

  /** The door of a channel (see the header): false when the frame is refused and the pair given up. */
  #admit(link: Link, data: unknown): boolean {
    const rate = this.#init.maxEventsPerSecond;
    let refusal: PlatformError | null = null;
    if (!link.inbound.take(performance.now(), rate * INBOUND_REFILL, rate * INBOUND_BURST)) {
      refusal = new PlatformError('RATE_LIMITED', `member ${link.clientId} sent more than ${rate} events per second on its data channel; its events go through the server from now on`);
    } else if ((typeof data === 'string' ? data.length : data instanceof ArrayBuffer ? data.byteLength : 0) > this.#init.maxPayloadBytes + FRAME_ENVELOPE_BYTES) {
      // UTF-16 units of a string are never more than its UTF-8 bytes: an honest frame always fits.
      refusal = new PlatformError('PAYLOAD_TOO_LARGE', `member ${link.clientId} sent a frame over ${this.#init.maxPayloadBytes} bytes on its data channel; its events go through the server from now on`);
    }
    if (refusal === null) return true;
    if (link.state === 'open') {
      this.#fail(link);
      this.#host.onRefused(link.clientId, refusal);
    }
    return false;
  }

  /** The member has every frame of this channel up to `seq`. */
  #acknowledged(link: Link, seq: number): void {
    const seqs = link.sentSeqs;
    let count = 0;
    while (count < seqs.length && seqs[count]! <= seq) count++;
    if (count === 0) return;
    for (let i = 0; i < count; i++) link.sentChars -= link.sentBodies[i]!.length;
    seqs.splice(0, count);
    link.sentBodies.splice(0, count);
  }

  /**
   * A frame of `seq` came on the channel: acknowledged in a batch, or after a short while. A
   * batch's acknowledgement waits for a microtask: it leaves after the event's listeners and
   * whatever they queued, so its cost is not added to the delivery the application sees.
   */
  #received(link: Link, seq: number): void {
    link.receivedSeq = seq;
    if (++link.ackOwed < ACK_EVERY) {
      link.ackTimer ??= setTimeout(() => this.#sendAck(link), ACK_DELAY_MS);
    } else if (!link.ackQueued) {
      link.ackQueued = true;
      queueMicrotask(() => this.#sendAck(link));
    }
  }

  #sendAck(link: Link): void {
    link.ackQueued = false;
    clearTimeout(link.ackTimer);
    link.ackTimer = undefined;
    link.ackOwed = 0;
    const channel = link.channel;
    if (link.state !== 'open' || !channel) return;
    try {
      (RTCDataChannel.prototype.send as (this: RTCDataChannel, data: string) => void).call(channel, peerAckFrame(link.receivedSeq));
    } catch {
      // The channel is closing: its close ends the pair, and the sender resends what it has not heard of.
    }
  }

  #drop(link: Link): void {
    clearTimeout(link.timer);
    clearTimeout(link.ackTimer);
    link.ackTimer = undefined;
    const connection = link.connection;
    link.connection = null;
    link.channel = null;
    if (link.state !== 'failed') link.state = 'failed';
    connection?.close();
  }

  /** Budget spent: open pairs keep working; no new pair is made, and nobody can offer one to us. */
  #leaveMesh(): void {
    const peer = this.#peer;
    for (const link of this.#links.values()) if (link.state === 'connecting' && !link.connection) this.#fail(link);
    for (const peerId of [...this.#held.keys()]) this.#dropHeld(peerId);
    if (peer && !peer.disconnected) peer.disconnect();
    this.#open = false;
  }
}
