/**
 * The mesh, loaded when a session first wants it: peer-transport.ts (and
 * through it peer-link.ts, held-calls.ts and peerjs) is a dynamic import, so
 * a bundler with code splitting puts it in chunks of its own. A relay-only
 * client (`mesh: false`, or a page without RTCPeerConnection, as in a Discord
 * Activity) never downloads them; the session's data path does not change.
 *
 * The session makes its peer transport synchronously when `joined` comes;
 * the mesh module and peerjs are almost always loaded by then (prefetchMesh()
 * fetches them once the template touches Platform.dispatch; `prepare()`, at
 * `connect()`, when it connects first). When it is not, a
 * stand-in takes its place until it is: it reaches nobody (the session relays
 * meanwhile, as it does for any pair not open yet) and remembers the members.
 */
import type { MemberWire, MeshSignalFrame } from '../../protocol/signaling.js';
import { webRtcAvailable } from './browser-endpoint.js';
import type * as PeerTransportModule from './peer-transport.js';
import type { PeerTransportOptions } from './peer-transport.js';
import type { PeerTransport, PeerTransportFactory, PeerTransportHost, PeerTransportInit } from './transport.js';

/** Signals kept for the mesh while its module loads: an offer and a few candidates from each of a mesh's members. */
const MAX_PENDING_SIGNALS = 256;
/** peerjs's prefetch waits for an idle moment this long at most: a page that is never idle (a game's loop) still gets it. */
const IDLE_WAIT_MS = 2_000;

/** The mesh's module, loading or loaded: one load per page, shared by every client. */
let meshModule: Promise<typeof PeerTransportModule> | null = null;

/** Loads the mesh's module once; a failed load (a network blip) is tried again at the next call, so the mesh is not ended for good. */
function loadMeshModule(): Promise<typeof PeerTransportModule> {
  if (!meshModule) {
    const loading = import('./peer-transport.js');
    meshModule = loading;
    loading.catch(() => {
      if (meshModule === loading) meshModule = null;
    });
  }
  return meshModule;
}

/**
 * Starts loading the mesh's module, and peerjs after it once the page is idle, in a page that can
 * use them. Platform.dispatch calls it once the session's module is in, when the template has not
 * turned the mesh off. Without it the mesh's module would load only at `connect()`, and peerjs
 * (the largest chunk by far) would download and compile beside the join: in players-meet, 8
 * members, that put the control socket's open 25 to 40 ms and the first offer 60 to 80 ms later
 * than with peerjs already in the page (bench/RESULTS.md, sixth session). A page whose viewer asked
 * to save data (`navigator.connection.saveData`) loads peerjs at `connect()`, as before.
 */
export function prefetchMesh(options: PeerTransportOptions): void {
  if (!webRtcAvailable()) return;
  loadMeshModule().then(
    (module) => {
      if (!savingData()) afterPageIdle(() => module.peerTransport(options).prepare?.());
    },
    () => undefined,
  );
}

/** The viewer asked the browser to save data (Chromium's Network Information API; absent elsewhere). */
function savingData(): boolean {
  return (navigator as Navigator & { connection?: { saveData?: boolean } }).connection?.saveData === true;
}

/** The page's first idle moment after it loaded (at most {@link IDLE_WAIT_MS} later); a task after its load where there is no requestIdleCallback (Safari). */
function afterPageIdle(callback: () => void): void {
  const idle = (): void => {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(() => callback(), { timeout: IDLE_WAIT_MS });
    else setTimeout(callback, 0);
  };
  if (document.readyState === 'complete') idle();
  else addEventListener('load', idle, { once: true });
}

/** The factory of the mesh, loaded on first use. */
export function lazyPeerTransport(options: PeerTransportOptions): PeerTransportFactory {
  let loaded: PeerTransportFactory | null = null;
  let loading: Promise<PeerTransportFactory> | null = null;
  const load = (): Promise<PeerTransportFactory> => {
    if (!loading) {
      loading = loadMeshModule().then((module) => (loaded = module.peerTransport(options)));
      // A failed load is tried again at the next connection.
      loading.catch(() => (loading = null));
    }
    return loading;
  };
  const factory: PeerTransportFactory = (init, host) => (loaded ? loaded(init, host) : new PendingMesh(load(), init, host));
  // The mesh module, then peerjs (its own prepare), while the socket opens and the join is answered.
  factory.prepare = () =>
    void load().then(
      (real) => real.prepare?.(),
      () => undefined,
    );
  return factory;
}

/** Stands in for the mesh until its module is loaded, then hands everything to it. */
class PendingMesh implements PeerTransport {
  #mesh: PeerTransport | null = null;
  #closed = false;
  #members: { readonly members: readonly MemberWire[]; readonly self: string } | null = null;
  /** Signals for the mesh that came before it (the session bounds how many it passes on). */
  #signals: MeshSignalFrame['m'][] = [];

  constructor(load: Promise<PeerTransportFactory>, init: PeerTransportInit, host: PeerTransportHost) {
    load.then(
      (real) => {
        if (this.#closed) return;
        const mesh = real(init, host);
        this.#mesh = mesh;
        if (this.#members) mesh.setMembers(this.#members.members, this.#members.self);
        this.#members = null;
        for (const message of this.#signals.splice(0)) mesh.onSignal(message);
      },
      (error: unknown) => console.warn('platform-kit: the mesh could not be loaded; every event goes through the relay', error),
    );
  }

  reaches(clientId: string): boolean {
    return this.#mesh?.reaches(clientId) ?? false;
  }

  sendTo(clientId: string, seq: number, prev: number, body: string): boolean {
    return this.#mesh?.sendTo(clientId, seq, prev, body) ?? false;
  }

  sendState(text: string): string[] {
    // Reaches nobody yet: the state goes by the relay meanwhile (state-port.ts), as for any pair not open.
    return this.#mesh?.sendState(text) ?? [];
  }

  setMembers(members: readonly MemberWire[], selfClientId: string): void {
    if (this.#mesh) this.#mesh.setMembers(members, selfClientId);
    else this.#members = { members, self: selfClientId };
  }

  onSignal(message: MeshSignalFrame['m']): void {
    if (this.#mesh) this.#mesh.onSignal(message);
    else if (!this.#closed && this.#signals.length < MAX_PENDING_SIGNALS) this.#signals.push(message);
  }

  paths(): Record<string, 'peer' | 'connecting' | 'relay'> {
    // The session lists every other member as 'relay' under what this returns.
    return this.#mesh?.paths() ?? {};
  }

  close(handOver?: boolean): void {
    this.#closed = true;
    this.#members = null;
    this.#signals = [];
    this.#mesh?.close(handOver);
  }
}
