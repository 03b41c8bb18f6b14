/**
 * What the mesh's two owners of a peerjs `Peer` share: the options of the
 * mesh, peerjs loaded once per loader, and the options a `Peer` is made with.
 * The owners: early-peer.ts (a `Peer` made at `connect()`, before `joined`,
 * with a proposed peer id) and peer-transport.ts (the mesh, which takes that
 * `Peer` over or makes its own with the id of `joined`).
 */
import type { Peer, PeerOptions } from 'peerjs';
import { PEERJS_KEY, PEERJS_PATH } from '../../protocol/signaling.js';

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

export function loadPeerJs(options: PeerTransportOptions): Promise<typeof Peer> {
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


/** The options of a `Peer` on the signaling server of `controlUrl` (its PeerJS endpoint is on the same host). */
export function peerOptions(controlUrl: string, token: string, options: PeerTransportOptions): PeerOptions {
  const url = new URL(controlUrl);
  const secure = url.protocol === 'wss:';
  const config: RTCConfiguration = options.blockIceCandidates
    ? { iceServers: [], iceTransportPolicy: 'relay' }
    : { iceServers: [...(options.iceServers ?? [{ urls: 'stun:stun.l.google.com:19302' }])] };
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : secure ? 443 : 80,
    path: PEERJS_PATH,
    key: PEERJS_KEY,
    // The token that binds our peer id; it travels in the peer socket's URL as peerjs requires. It
    // is a per-connection secret, not the project token.
    token,
    secure,
    config,
    // LogLevel.Disabled: the enum's value is not imported (peerjs itself loads lazily; only its types are imported here).
    // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
    debug: 0,
  };
}
