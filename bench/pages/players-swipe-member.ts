// One member of the players-meet swipe part (issue 27): a template with the
// real Dispatch client and FeedSdk, held by a TemplateFrame that speaks for a
// feed (players-swipe-host.ts). Two ways to meet the others:
//   - prewarmed (the kit's way now): connect() at once, preloaded; the
//     template is away until the host says it plays, then here;
//   - join on focus (the baseline: what the demo's board did): connect()
//     only when the host says it plays.
// It notes in wall-clock ms when it heard it plays, when its list of the
// players here first held every member, when every other member's data
// channel was open (and how many were open already when it heard it plays),
// and when it first listed each other member here.
import { createDispatch } from '../../guest/dispatch/index.js';
import { FeedSdk } from '../../guest/feed-sdk.js';
import { loadPeerJsBundle } from './peerjs-bundle.js';

/** What Node reads back. */
export interface SwipeMemberReport {
  clientId: string | null;
  connected: number | null;
  /** When this page heard it plays (the host's playbackStateChanged(true)). */
  focusAt: number | null;
  /** The first time its list of the members here held every member, itself included. */
  listedAllAt: number | null;
  /** When every other member's data path was a data channel. */
  meshAllAt: number | null;
  /** Data channels already open (of the others) when it heard it plays. */
  openAtFocus: number;
  /** When it first listed each other member here. */
  listedAt: Record<string, number>;
  /** The data path to each member now. */
  paths: Record<string, string>;
  error: string | null;
}

declare global {
  interface Window {
    __swipe?: {
      start(options: { url: string; shardName: string; members: number; joinOnFocus: boolean }): void;
      report(): SwipeMemberReport;
      meshReady(members: number): boolean;
    };
  }
}

const wall = (): number => performance.timeOrigin + performance.now();
const report: SwipeMemberReport = { clientId: null, connected: null, focusAt: null, listedAllAt: null, meshAllAt: null, openAtFocus: 0, listedAt: {}, paths: {}, error: null };
let dispatch: ReturnType<typeof createDispatch> | null = null;

const peers = (): string[] => {
  const self = dispatch?.connectionInfo?.clientId;
  return Object.entries(dispatch?.session?.paths() ?? {})
    .filter(([clientId, path]) => clientId !== self && path === 'peer')
    .map(([clientId]) => clientId);
};

// At once, as a template does: the link to the host is made (and the host can tell it plays) before start().
const feed = new FeedSdk();
void feed.load();

function start(options: { url: string; shardName: string; members: number; joinOnFocus: boolean }): void {
  // As the sketch board configures it on loopback: no STUN server between tabs of one machine.
  const client = createDispatch({ url: options.url, projectId: 'bench', loadPeerJs: loadPeerJsBundle, iceServers: [], receiveOwnBroadcasts: false });
  dispatch = client;
  client.onConnectedClientsChanged((clients) => {
    const now = wall();
    for (const c of clients) report.listedAt[c.clientId] ??= now;
    if (report.focusAt !== null && clients.length >= options.members) report.listedAllAt ??= now;
  });
  const connect = (): void => {
    client.connect({ shardName: options.shardName, maxConnectionsPerShard: 16 }).then(
      (info) => {
        report.connected = wall();
        report.clientId = info.clientId;
      },
      (error: unknown) => (report.error = String(error)),
    );
  };
  feed.onPlaybackStateChanged((isPlaying) => {
    if (!isPlaying || report.focusAt !== null) return;
    report.focusAt = wall();
    report.openAtFocus = peers().length;
    if (options.joinOnFocus) connect();
    // Its list may hold every member already (its own listener ran first: Dispatch follows the same notification).
    if ((dispatch?.session?.connectedClients.filter((c) => c.state === 'here').length ?? 0) >= options.members) report.listedAllAt ??= report.focusAt;
    const watch = (): void => {
      if (peers().length >= options.members - 1) report.meshAllAt = wall();
      else if (wall() - report.focusAt! < 15_000) setTimeout(watch, 2);
    };
    watch();
  });
  if (!options.joinOnFocus) connect();
}

window.__swipe = {
  start,
  report: () => ({ ...report, paths: dispatch?.session?.paths() ?? {} }),
  meshReady: (members) => report.connected !== null && peers().length >= members - 1,
};
