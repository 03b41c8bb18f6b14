// One member of the players-meet benchmark: a template page (in a cross-origin
// iframe) with the real Dispatch client. Node calls start() in every member at
// once; the member calls connect(), says hello as soon as it is connected,
// then emits a tick every TICK_MS (a cursor, as the sketch board sends) to
// each member until one went over the mesh, and notes in wall-clock ms when it saw each other member in its presence list
// and when each one's first event came, by which path (bench/support/meet-marks.ts
// tells a data channel's frame from the control socket's).
import type { Peer } from 'peerjs';
import { createDispatch } from '../../guest/dispatch/index.js';
import { loadPeerJsBundle } from './peerjs-bundle.js';
import type { MeetMarks } from '../support/meet-marks.js';
import { whenTrue } from './when-true.js';

const query = new URLSearchParams(location.search);
/**
 * How a member finds out that the mesh carries its events to another member:
 * - `ready` (default): it looks at its session's paths every {@link TICK_MS} (no network) and
 *   sends one tick to each member whose path just turned `peer`: the tick goes by that data
 *   channel. What plain WebRTC's page does on its channel's open, give or take the look's period.
 * - `cursor` (an ablation, the probe of 2026-11-25 to 11-27): a tick every TICK_MS to each member
 *   the mesh has not carried one to yet, by whichever path, as a cursor would. That is up to
 *   7 × 50 relayed events a second per member while pairs meet, a load plain WebRTC's page does
 *   not carry; with 16 renderers on two cores it lengthened each pair's setup by 1.3× to 1.6×.
 */
const PROBE: 'ready' | 'cursor' = query.get('probe') === 'cursor' ? 'cursor' : 'ready';
/** The probe's period (see PROBE): fine enough to see when the mesh starts carrying events. */
const TICK_MS = Number(query.get('tick') ?? (PROBE === 'ready' ? 5 : 20));
/** Ticks stop after this long at most (Node stops them sooner once every member is done). */
const TICKS_FOR_MS = 10_000;

/** What a member saw of another one. */
export interface SeenMember {
  /** Listed in this member's presence (wall-clock ms). */
  presence?: number;
  /** Its first event, any path: when, which event, which path. */
  first?: { at: number; name: string; path: 'mesh' | 'relay' };
  /** Its hello (the event sent right after its connect() resolved): when and by which path. */
  hello?: { at: number; path: 'mesh' | 'relay' };
  /** Its first event that came over the mesh. */
  firstMesh?: { at: number; name: string };
}

/** What Node reads back. */
export interface MemberReport {
  clientId: string | null;
  connectCalled: number;
  connected: number | null;
  /** Every other member listed (the presence list holds `members`). */
  allListed: number | null;
  /** Every other member listed here or away (`includeAway`): the bench's page is no kit host, so its members are away for LINK_WAIT_MS. */
  allListedAny: number | null;
  seen: Record<string, SeenMember>;
  marks: MeetMarks;
  /** The data path to each member when the report was read (session.paths()). */
  paths: Record<string, string>;
  error: string | null;
}

declare global {
  interface Window {
    __member?: {
      start(options: { url: string; shardName: string; members: number }): number;
      stop(): void;
      report(): MemberReport;
      done(members: number): boolean;
      whenDone(members: number, timeoutMs: number): Promise<boolean>;
    };
  }
}

/**
 * An ablation (`?preload=0`): the load asked for by connect() (the transport's prepare()) waits
 * until the join is answered, as it did before the mesh's preload: what the preload costs the join.
 */
const deferLoad = new URLSearchParams(location.search).get('preload') === '0';

async function joined(): Promise<void> {
  while (!meet.marks['control ← joined']) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** peerjs's prebuilt bundle, after the join when the ablation defers it. */
async function loadPeerJs(): Promise<typeof Peer> {
  if (deferLoad) await joined();
  meet.mark('peerjs asked for');
  const PeerClass = await loadPeerJsBundle();
  meet.mark('peerjs loaded');
  return PeerClass;
}

const meet = window.__meet!;
const report: MemberReport = { clientId: null, connectCalled: 0, connected: null, allListed: null, allListedAny: null, seen: {}, marks: meet.marks, paths: {}, error: null };
let current: ReturnType<typeof createDispatch> | null = null;
let ticker: ReturnType<typeof setInterval> | undefined;

const seen = (clientId: string): SeenMember => (report.seen[clientId] ??= {});

// As the sketch board configures it on loopback: no STUN server between tabs of one machine.
const makeClient = (): ReturnType<typeof createDispatch> => createDispatch({ projectId: 'bench', loadPeerJs, iceServers: [], receiveOwnBroadcasts: false });
/**
 * The client is made as the page loads, as a template touches Platform.dispatch when its module
 * runs (to add its listeners), and connects when Node says start (a user's click, a focus). An
 * ablation, `?create=start`: made in start(), in the same task as connect(), as a template that
 * touches Dispatch for the first time by connecting.
 */
const madeAtLoad = new URLSearchParams(location.search).get('create') === 'start' ? null : makeClient();

function start(options: { url: string; shardName: string; members: number }): number {
  const dispatch = madeAtLoad ?? makeClient();
  dispatch.configure({ url: options.url });
  current = dispatch;
  dispatch.onConnectedClientsChanged((clients) => {
    const now = meet.wall();
    for (const client of clients) if (client.clientId !== dispatch.connectionInfo?.clientId) seen(client.clientId).presence ??= now;
    if (clients.length >= options.members) report.allListed ??= now;
  });
  dispatch.onConnectedClientsChanged(
    (clients) => {
      if (clients.length >= options.members) report.allListedAny ??= meet.wall();
    },
    { includeAway: true },
  );
  const heard = (name: string) => (payload: { mesh?: string[] }, metadata: { clientId: string }) => {
    const now = meet.wall();
    // On a channel's message (meet-marks.ts); or a frame that came on a call this member held
    // until it knew the caller (held-calls.ts), handed over later: the sender says it sent it by the mesh.
    const self = current?.connectionInfo?.clientId;
    const path = meet.onChannel > 0 || (self !== undefined && payload.mesh?.includes(self) === true) ? 'mesh' : 'relay';
    const member = seen(metadata.clientId);
    member.first ??= { at: now, name, path };
    if (name === 'hello') member.hello ??= { at: now, path };
    if (path === 'mesh') member.firstMesh ??= { at: now, name };
  };
  dispatch.on('hello', heard('hello'));
  dispatch.on('tick', heard('tick'));
  report.connectCalled = meet.wall();
  dispatch.connect({ shardName: options.shardName }).then(
    (info) => {
      report.connected = meet.wall();
      report.clientId = info.clientId;
      void dispatch.emitEvent('hello', {});
      // Ticks go to the members not reached by the mesh yet: the tick sent once a member's channel
      // is open goes by it, and that member gets no more (the measurement adds no load after that).
      const meshed = new Set<string>();
      let tick = 0;
      const started = performance.now();
      ticker = setInterval(() => {
        if (performance.now() - started > TICKS_FOR_MS) return stop();
        const to: string[] = [];
        for (const [clientId, path] of Object.entries(dispatch.session?.paths() ?? {})) {
          if (clientId === info.clientId || meshed.has(clientId)) continue;
          if (PROBE === 'cursor' || path === 'peer') to.push(clientId);
          if (path === 'peer') meshed.add(clientId);
        }
        const mesh = to.filter((clientId) => meshed.has(clientId));
        if (to.length > 0) void dispatch.emitEvent('tick', { i: ++tick, mesh }, to).catch(() => undefined);
        else if (meshed.size >= options.members - 1) stop();
      }, TICK_MS);
    },
    (error: unknown) => {
      report.error = String(error);
    },
  );
  return report.connectCalled;
}

function stop(): void {
  clearInterval(ticker);
}

/** Every other member listed, and a mesh event from each (or an error). */
function done(members: number): boolean {
  if (report.error !== null) return true;
  const others = Object.values(report.seen);
  // Not every hello: one sent before its sender knew this member went to the members it knew (event-sender.ts).
  return report.allListed !== null && others.length >= members - 1 && others.every((member) => member.firstMesh !== undefined);
}

const whenDone = (members: number, timeoutMs: number): Promise<boolean> => whenTrue(() => done(members), timeoutMs);

window.__member = { start, stop, report: () => ({ ...report, paths: current?.session?.paths() ?? {} }), done, whenDone };
