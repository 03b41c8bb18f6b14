/**
 * The mesh path: one ordered, reliable WebRTC data channel per pair of
 * browser members, through peerjs and the server's PeerJS signaling. This
 * file decides which pairs exist and when one fails; what a pair does per
 * frame (acknowledgements, the door) is peer-link.ts, calls from members not
 * known yet wait in held-calls.ts, and the page's budget of peer connections
 * is peer-budget.ts.
 *
 * - Who calls whom: the member with the smaller peer id opens the connection
 *   and the other waits for it. Both read the same presence list, so exactly
 *   one offer is made per pair and offers never cross (no glare to resolve).
 * - A call from a member not known yet is held, not refused (held-calls.ts).
 * - Failure: a pair that is not open within `p2pTimeoutMs` (default 10 s),
 *   or whose ICE state turns `failed`, or whose channel closes, stays on the
 *   relay. The session relays to a member until its channel is open, so the
 *   application sees no gap either way. What the pair had not delivered goes
 *   to the session, which resends it by the relay (peer-link.ts).
 * - Mesh size: above `meshMaxMembers` browser members the transport closes
 *   its connections and everything goes through the relay, so no page holds
 *   99 peer connections.
 * - When the page's peer-connection budget is spent (peer-budget.ts), the
 *   page leaves the mesh (its peer socket closes, so nobody's offer makes it
 *   create more) and relays.
 * - peerjs is loaded on first use (dynamic import), from `connect()` on:
 *   a template that never connects never downloads it.
 * - Signalling: on the control socket when `joined` says so
 *   (control-signal.ts: no second socket, no handshake to wait for before
 *   the first offer), else on a PeerJS socket of the server's.
 */
import type { DataConnection, Peer, PeerOptions } from 'peerjs';
import { PEER_ACK_PREFIX, PEER_STATE_PREFIX, PEERJS_KEY, PEERJS_PATH, parsePeerAck, parsePeerState, type MemberWire, type MeshSignalFrame } from '../../protocol/signaling.js';
import { ControlSignalLine, peerOnControl } from './control-signal.js';
import { HeldCalls } from './held-calls.js';
import { peerConnectionsCreated, spendPeerConnection } from './peer-budget.js';
import { PeerLink } from './peer-link.js';
import { shortenNegotiation } from './peer-negotiation.js';
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

/** The default loader: a dynamic import (bundlers make it a chunk of its own). */
const importPeerJs = async (): Promise<typeof Peer> => (await import('peerjs')).Peer;
/** peerjs loading or loaded, per loader: prepare() and the transport share one load. */
const peerJsLoads = new WeakMap<() => Promise<typeof Peer>, Promise<typeof Peer>>();

function loadPeerJs(options: PeerTransportOptions): Promise<typeof Peer> {
  const loader = options.loadPeerJs ?? importPeerJs;
  let load = peerJsLoads.get(loader);
  if (!load) {
    load = loader();
    peerJsLoads.set(loader, load);
    // A failed load is tried again at the next connection (a network blip must not end the mesh for good).
    load.catch(() => peerJsLoads.delete(loader));
  }
  return load;
}

/**
 * Makes the factory the session calls once it has a peer id. Its `prepare()` starts loading
 * peerjs: at the page's first idle moment after the template touched Platform.dispatch
 * (lazy-mesh.ts's prefetchMesh), or at `connect()` when that comes first, where the load overlaps
 * the socket's opening and the join instead of following them.
 */
export function peerTransport(options: PeerTransportOptions = {}): PeerTransportFactory {
  const factory: PeerTransportFactory = (init, host) => new MeshTransport(init, host, options);
  factory.prepare = () => void loadPeerJs(options).catch(() => undefined);
  return factory;
}

class MeshTransport implements PeerTransport {
  readonly #init: PeerTransportInit;
  readonly #host: PeerTransportHost;
  readonly #options: PeerTransportOptions;
  readonly #links = new Map<string, PeerLink>();
  readonly #byPeer = new Map<string, string>();
  readonly #held: HeldCalls;
  readonly #fail = (link: PeerLink): void => this.#failLink(link);
  #peer: Peer | null = null;
  #open = false;
  #closed = false;
  #members: readonly MemberWire[] = [];
  #self = '';
  /** The control socket as the signalling path (`init.signal`); it keeps what comes before peerjs is there. */
  readonly #line: ControlSignalLine | null;

  constructor(init: PeerTransportInit, host: PeerTransportHost, options: PeerTransportOptions) {
    this.#init = init;
    this.#host = host;
    this.#options = options;
    this.#held = new HeldCalls(options.p2pTimeoutMs ?? 10_000);
    this.#line = init.signal ? new ControlSignalLine(init.signal) : null;
    void this.#start();
  }

  onSignal(message: MeshSignalFrame['m']): void {
    if (!this.#closed) this.#line?.receive(message);
  }

  async #start(): Promise<void> {
    let PeerClass: typeof Peer;
    try {
      PeerClass = await loadPeerJs(this.#options);
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
    const peerOptions: PeerOptions = {
      host: url.hostname,
      port: url.port ? Number(url.port) : secure ? 443 : 80,
      path: PEERJS_PATH,
      key: PEERJS_KEY,
      // The token the server bound to our peer id; it travels in the peer socket's URL as peerjs
      // requires. It is a per-connection secret, not the project token.
      token: this.#init.peerToken,
      secure,
      config,
      // LogLevel.Disabled: the enum's value is not imported (peerjs itself loads lazily; only its types are imported here).
      // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
      debug: 0,
    };
    const line = this.#line;
    const peer = line ? peerOnControl(PeerClass, this.#init.peerId, peerOptions, line) : new PeerClass(this.#init.peerId, peerOptions);
    if (!peer) {
      // The server expects this member's signals on the control socket and refuses it a PeerJS socket.
      console.warn('platform-kit: this peerjs cannot signal on the control socket; every event goes through the relay');
      return;
    }
    this.#peer = peer;
    shortenNegotiation(peer);
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
    return link !== undefined && link.send(seq, prev, body);
  }

  sendState(text: string): string[] {
    const reached: string[] = [];
    for (const link of this.#links.values()) if (link.sendState(text)) reached.push(link.clientId);
    return reached;
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
      link.drop();
    }
    this.#links.clear();
    this.#byPeer.clear();
    this.#held.clear();
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
        link.drop();
        this.#links.delete(link.clientId);
        this.#byPeer.delete(link.peerId);
      }
    }
    if (!this.#open || !this.#peer) return;
    for (const member of wanted) {
      if (this.#links.has(member.clientId) || member.peerId === null) continue;
      const link = new PeerLink(member.clientId, member.peerId, this.#init.maxEventsPerSecond, this.#fail);
      this.#links.set(member.clientId, link);
      this.#byPeer.set(member.peerId, member.clientId);
      link.timer = setTimeout(() => this.#failLink(link), this.#options.p2pTimeoutMs ?? 10_000);
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
      const held = this.#held.take(member.peerId);
      if (held) {
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
    if (clientId === undefined && !this.#members.some((member) => member.peerId === connection.peer)) return this.#held.hold(connection);
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

  /** `early`: frames a held call brought before it was bound, handled first, in order. */
  #bind(link: PeerLink, connection: DataConnection, early: readonly unknown[] = []): void {
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
        if (text.startsWith(PEER_STATE_PREFIX)) {
          const update = parsePeerState(text, this.#init.maxPayloadBytes);
          if (update !== null) this.#host.onState?.(link.clientId, update);
          return;
        }
        if (text.startsWith(PEER_ACK_PREFIX)) {
          const seq = parsePeerAck(text);
          if (seq !== null) link.acknowledged(seq);
          return;
        }
        const seq = this.#host.onFrame(link.clientId, text);
        if (seq > link.receivedSeq) link.received(seq);
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
      if (link.connection === connection) this.#failLink(link);
    });
    connection.on('error', () => {
      if (link.connection === connection) this.#failLink(link);
    });
    connection.on('iceStateChanged', (state) => {
      if (state === 'failed' && link.connection === connection) this.#failLink(link);
    });
  }

  /** The pair stays on the relay from now on (until the member leaves and comes back); what it did not deliver goes there too. */
  #failLink(link: PeerLink): void {
    if (link.state === 'failed') return;
    link.state = 'failed';
    this.#handOver(link);
    link.drop();
  }

  /** Hands the frames the member has not acknowledged to the session, which relays them. */
  #handOver(link: PeerLink): void {
    const taken = link.takeUnacknowledged();
    if (taken) this.#host.onUndelivered(link.clientId, taken.seqs, taken.bodies);
  }

  /** The door of a channel (peer-link.ts): false when the frame is refused and the pair given up. */
  #admit(link: PeerLink, data: unknown): boolean {
    const refusal = link.refusal(data, this.#init);
    if (refusal === null) return true;
    if (link.state === 'open') {
      this.#failLink(link);
      this.#host.onRefused(link.clientId, refusal);
    }
    return false;
  }

  /** Budget spent: open pairs keep working; no new pair is made, and nobody can offer one to us. */
  #leaveMesh(): void {
    const peer = this.#peer;
    for (const link of this.#links.values()) if (link.state === 'connecting' && !link.connection) this.#failLink(link);
    this.#held.clear();
    if (peer && !peer.disconnected) peer.disconnect();
    this.#open = false;
  }
}
