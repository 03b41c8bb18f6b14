/**
 * Server capacity: 10,000 simulated clients (Node WebSocket clients) join
 * 1,000 shards of 10 (automatic placement), against PeerServer (`peer`)
 * registering as many peers, in the same run, each server alone in a child
 * process. Joins per second (connect + handshake + join answered, 200 in
 * flight) and memory per idle connected client (heap and RSS after a full GC,
 * minus the idle server's).
 * Targets: ≥ 2,000 joins/s, ≤ 20 KB per idle client, ahead of PeerServer.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { bytes, table, type BenchContext, type BenchOutcome } from './support/bench.js';

export const description = 'Signaling server: joins per second and memory per idle client for 10,000 clients in 1,000 shards, against PeerServer.';

const CLIENTS = 10_000;
const IN_FLIGHT = 200;

interface Measure {
  heapUsed: number;
  rss: number;
  external: number;
  cpu: { user: number; system: number };
}

function startChild(kind: 'ours' | 'peer'): Promise<{ child: ChildProcess; port: number }> {
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
async function joinAll(open: (i: number) => WebSocket, ready: (frame: string) => boolean): Promise<{ sockets: WebSocket[]; ms: number }> {
  const sockets: WebSocket[] = [];
  let next = 0;
  const started = performance.now();
  async function lane(): Promise<void> {
    while (next < CLIENTS) {
      const i = next++;
      const socket = open(i);
      sockets.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.on('message', (data) => {
          if (ready(String(data))) resolve();
        });
        socket.once('error', reject);
      });
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return { sockets, ms: performance.now() - started };
}

async function runOne(kind: 'ours' | 'peer'): Promise<{ joinsPerSecond: number; heapPerClient: number; rssPerClient: number; cpuMs: number }> {
  const { child, port } = await startChild(kind);
  try {
    const idle = await measure(child);
    const { sockets, ms } =
      kind === 'ours'
        ? await joinAll(
            () => {
              const socket = new WebSocket(`ws://127.0.0.1:${port}/dispatch`, { perMessageDeflate: false });
              socket.once('open', () => socket.send(JSON.stringify({ type: 'join', v: 1, id: 1, projectId: 'bench', kind: 'browser', maxConnectionsPerShard: 10 })));
              return socket;
            },
            (frame) => frame.startsWith('{"type":"joined"'),
          )
        : await joinAll(
            (i) => new WebSocket(`ws://127.0.0.1:${port}/peerjs?key=peerjs&id=peer${i}x${Date.now()}&token=t${i}&version=1.5.5`, { perMessageDeflate: false }),
            (frame) => frame.includes('"OPEN"'),
          );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const loaded = await measure(child);
    for (const socket of sockets) socket.terminate();
    return {
      joinsPerSecond: CLIENTS / (ms / 1000),
      heapPerClient: (loaded.heapUsed + loaded.external - idle.heapUsed - idle.external) / CLIENTS,
      rssPerClient: (loaded.rss - idle.rss) / CLIENTS,
      cpuMs: (loaded.cpu.user + loaded.cpu.system - idle.cpu.user - idle.cpu.system) / 1000,
    };
  } finally {
    child.kill();
  }
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const ours = await runOne('ours');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const peer = await runOne('peer');
  const kb = (value: number) => `${(value / 1024).toFixed(1)} KB`;
  context.log(`${bytes(CLIENTS)} clients, ${IN_FLIGHT} joins in flight; ours in 1,000 shards of 10 (browser kind: peer ids issued too).\n`);
  context.log(
    table(
      ['server', 'joins/s', 'heap+external per client', 'RSS per client', 'server CPU for all joins'],
      [
        ['ours (signaling)', bytes(Math.round(ours.joinsPerSecond)), kb(ours.heapPerClient), kb(ours.rssPerClient), `${ours.cpuMs.toFixed(0)} ms`],
        ['PeerServer (peer 1.0.2)', bytes(Math.round(peer.joinsPerSecond)), kb(peer.heapPerClient), kb(peer.rssPerClient), `${peer.cpuMs.toFixed(0)} ms`],
      ],
    ),
  );
  return {
    targets: [
      { name: 'at least 2,000 joins/s', pass: ours.joinsPerSecond >= 2_000, detail: `${ours.joinsPerSecond.toFixed(0)} joins/s` },
      { name: 'at most 20 KB per idle client (RSS)', pass: ours.rssPerClient <= 20 * 1024, detail: `${kb(ours.rssPerClient)} RSS, ${kb(ours.heapPerClient)} heap+external` },
      { name: 'more joins/s than PeerServer registrations/s', pass: ours.joinsPerSecond > peer.joinsPerSecond, detail: `${ours.joinsPerSecond.toFixed(0)} vs ${peer.joinsPerSecond.toFixed(0)}` },
      { name: 'less memory per client than PeerServer (RSS)', pass: ours.rssPerClient < peer.rssPerClient, detail: `${kb(ours.rssPerClient)} vs ${kb(peer.rssPerClient)}` },
    ],
  };
}
