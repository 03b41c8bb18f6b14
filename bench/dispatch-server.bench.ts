/**
 * Server capacity: 10,000 simulated clients (Node WebSocket clients) join
 * 1,000 shards of 10 (automatic placement), against PeerServer (`peer`)
 * registering as many peers, in the same run, each server alone in a child
 * process. Joins per second (connect + handshake + join answered, 200 in
 * flight) and memory per idle connected client (heap and RSS after a full GC,
 * minus the idle server's).
 * Targets: ≥ 2,000 joins/s, ≤ 20 KB per idle client, ahead of PeerServer.
 *
 * Method, so that the comparison is fair:
 * - Same work asked of both: 10,000 clients, 200 in flight, from this one
 *   process, with the same `ws` client and no compression, each server alone
 *   in a fresh child process on the same machine.
 * - A join is what each server's own client does to be reachable. Ours: what
 *   the browser client (session.ts, v2) sends, the join in the handshake
 *   (`encodeHandshakeJoin`), done when `joined` arrives; the server places
 *   the client in a shard, issues its client id, peer id and resume token,
 *   and tells the shard's other members (presence). PeerServer: the peerjs
 *   client's socket (`/peerjs?key&id&token&version`), done when `OPEN`
 *   arrives; it registers the peer id and tells nobody.
 * - Both in turns, ABBA (ours, PeerServer, PeerServer, ours) three times:
 *   load from elsewhere on the machine that drifts during the run hits both
 *   alike. Figures are the mean of the turns; each turn is printed too, and
 *   the paired ratio (each of our turns against the PeerServer turn next to
 *   it) is the median over the pairs.
 * - Memory is the server process's, after three full GCs, minus the same
 *   process idle before the clients came; 1.5 s after the last join.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { encodeHandshakeJoin, SIGNALING_VERSION } from '../protocol/signaling.js';
import { bytes, table, type BenchContext, type BenchOutcome } from './support/bench.js';

export const description = 'Signaling server: joins per second and memory per idle client for 10,000 clients in 1,000 shards, against PeerServer.';

const CLIENTS = 10_000;
const IN_FLIGHT = 200;
/** ABBA cycles: one server's joins/s moves by ±20 % between turns on a shared 2-core machine. */
const CYCLES = 3;

type Kind = 'ours' | 'peer';

interface Measure {
  heapUsed: number;
  rss: number;
  external: number;
  cpu: { user: number; system: number };
}

interface Turn {
  joinsPerSecond: number;
  heapPerClient: number;
  rssPerClient: number;
  /** Server process CPU for all joins. */
  cpuMs: number;
  /** This (client) process's CPU for all joins: it shares the 2 cores with the server. */
  clientCpuMs: number;
  /** Frames the clients received until 1.5 s after the last join (joined/OPEN, presence). */
  frames: number;
}

function startChild(kind: Kind): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(fileURLToPath(new URL('./support/dispatch-server-child.ts', import.meta.url)), [kind], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve({ child, port: (message as { port: number }).port }));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

function measure(child: ChildProcess): Promise<Measure> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as Measure));
    child.send('measure');
  });
}

/** Opens `CLIENTS` sockets, `IN_FLIGHT` at a time; each is done when `ready` says so. */
async function joinAll(open: (i: number) => WebSocket, ready: (frame: string) => boolean): Promise<{ sockets: WebSocket[]; ms: number; frames: () => number }> {
  const sockets: WebSocket[] = [];
  let next = 0;
  let frames = 0;
  const started = performance.now();
  async function lane(): Promise<void> {
    while (next < CLIENTS) {
      const i = next++;
      const socket = open(i);
      sockets.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.on('message', (data) => {
          frames++;
          if (ready(String(data))) resolve();
        });
        socket.once('error', reject);
        // A socket the server closed before it answered would otherwise hang this lane forever.
        socket.once('close', (code) => reject(new Error(`socket ${i} closed (${code}) before it joined`)));
      });
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return { sockets, ms: performance.now() - started, frames: () => frames };
}

async function runOne(kind: Kind): Promise<Turn> {
  const { child, port } = await startChild(kind);
  try {
    const idle = await measure(child);
    const clientCpu = process.cpuUsage();
    const { sockets, ms, frames } =
      kind === 'ours'
        ? await joinAll(
            () => {
              // As the browser client does: the join rides in the handshake (one round trip).
              const protocols = encodeHandshakeJoin({ type: 'join', v: SIGNALING_VERSION, id: 1, projectId: 'bench', kind: 'browser', maxConnectionsPerShard: 10, userInfo: {} });
              return new WebSocket(`ws://127.0.0.1:${port}/dispatch`, protocols ? [...protocols] : [], { perMessageDeflate: false });
            },
            (frame) => frame.startsWith('{"type":"joined"'),
          )
        : await joinAll(
            (i) => new WebSocket(`ws://127.0.0.1:${port}/peerjs?key=peerjs&id=peer${i}x${Date.now()}&token=t${i}&version=1.5.5`, { perMessageDeflate: false }),
            (frame) => frame.includes('"OPEN"'),
          );
    const client = process.cpuUsage(clientCpu);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const loaded = await measure(child);
    const received = frames();
    for (const socket of sockets) socket.terminate();
    return {
      joinsPerSecond: CLIENTS / (ms / 1000),
      heapPerClient: (loaded.heapUsed + loaded.external - idle.heapUsed - idle.external) / CLIENTS,
      rssPerClient: (loaded.rss - idle.rss) / CLIENTS,
      cpuMs: (loaded.cpu.user + loaded.cpu.system - idle.cpu.user - idle.cpu.system) / 1000,
      clientCpuMs: (client.user + client.system) / 1000,
      frames: received,
    };
  } finally {
    child.kill();
  }
}

const mean = (turns: readonly Turn[], key: keyof Turn): number => turns.reduce((sum, turn) => sum + turn[key], 0) / turns.length;

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const turns: Record<Kind, Turn[]> = { ours: [], peer: [] };
  // ABBA: drift in the machine's load over the run weighs on both servers alike.
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    for (const kind of ['ours', 'peer', 'peer', 'ours'] as const) {
      const turn = await runOne(kind);
      turns[kind].push(turn);
      context.log(`turn ${turns.ours.length + turns.peer.length}: ${kind} ${turn.joinsPerSecond.toFixed(0)} joins/s, ${(turn.rssPerClient / 1024).toFixed(1)} KB RSS per client`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  // Pairs of adjacent turns: ours then PeerServer, PeerServer then ours, in each cycle.
  const pairedRatio = (key: 'joinsPerSecond' | 'rssPerClient'): number => {
    const ratios = turns.ours.map((turn, i) => turn[key] / turns.peer[i]![key]).sort((a, b) => a - b);
    return ratios[Math.floor(ratios.length / 2)]!;
  };
  const kb = (value: number) => `${(value / 1024).toFixed(1)} KB`;
  const row = (name: string, list: readonly Turn[]): string[] => [
    name,
    bytes(Math.round(mean(list, 'joinsPerSecond'))),
    list.map((turn) => bytes(Math.round(turn.joinsPerSecond))).join(' / '),
    kb(mean(list, 'heapPerClient')),
    kb(mean(list, 'rssPerClient')),
    list.map((turn) => kb(turn.rssPerClient)).join(' / '),
    `${(mean(list, 'cpuMs') / CLIENTS).toFixed(3)} ms`,
    `${(mean(list, 'clientCpuMs') / CLIENTS).toFixed(3)} ms`,
    bytes(Math.round(mean(list, 'frames'))),
  ];
  context.log(`${bytes(CLIENTS)} clients, ${IN_FLIGHT} joins in flight, same ws client, same machine, same run; turns ABBA (ours, PeerServer, PeerServer, ours) ×${CYCLES}, figures the mean of the turns.`);
  context.log('Ours: join in the handshake as the browser client sends it (v2), 1,000 shards of 10, peer ids issued, presence to the shard. PeerServer: peer id registered, OPEN.\n');
  context.log(
    table(
      ['server', 'joins/s', 'turns', 'heap+external per client', 'RSS per client', 'turns (RSS)', 'server CPU per join', 'client CPU per join', 'frames received'],
      [row('ours (signaling)', turns.ours), row('PeerServer (peer 1.0.2)', turns.peer)],
    ),
  );
  const ours = { joinsPerSecond: mean(turns.ours, 'joinsPerSecond'), rssPerClient: mean(turns.ours, 'rssPerClient'), heapPerClient: mean(turns.ours, 'heapPerClient') };
  const peer = { joinsPerSecond: mean(turns.peer, 'joinsPerSecond'), rssPerClient: mean(turns.peer, 'rssPerClient') };
  return {
    targets: [
      { name: 'at least 2,000 joins/s', pass: ours.joinsPerSecond >= 2_000, detail: `${ours.joinsPerSecond.toFixed(0)} joins/s` },
      { name: 'at most 20 KB per idle client (RSS)', pass: ours.rssPerClient <= 20 * 1024, detail: `${kb(ours.rssPerClient)} RSS, ${kb(ours.heapPerClient)} heap+external` },
      {
        name: 'more joins/s than PeerServer registrations/s',
        pass: ours.joinsPerSecond > peer.joinsPerSecond,
        detail: `${ours.joinsPerSecond.toFixed(0)} vs ${peer.joinsPerSecond.toFixed(0)}; paired median ${pairedRatio('joinsPerSecond').toFixed(2)}×`,
      },
      {
        name: 'less memory per client than PeerServer (RSS)',
        pass: ours.rssPerClient < peer.rssPerClient,
        detail: `${kb(ours.rssPerClient)} vs ${kb(peer.rssPerClient)}; paired median ${pairedRatio('rssPerClient').toFixed(2)}×`,
      },
    ],
    data: { clients: CLIENTS, inFlight: IN_FLIGHT, order: 'ABBA', turns },
  };
}
