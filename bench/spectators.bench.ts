/**
 * Spectators (issue 27): one shard of 10 players and 1,000 spectators on one
 * node. The players broadcast 10 events per second in all for 10 s; every
 * spectator must get every broadcast, in the shard's order; the server must
 * stay below one core meanwhile; and a spectator must cost the server no more
 * memory than an idle client.
 *
 * Method:
 * - The server alone in a child process (bench/support/dispatch-server-child.ts,
 *   `ours open`: the per-address limits lifted, every client being on
 *   loopback), clients on plain `ws` sockets in this process speaking the
 *   wire as the kit's client does (join v2, `emit`), no compression.
 * - Turn A: 10 players join shard `stage`; the server's memory (after three
 *   full GCs); 1,000 spectators join it (`spectator: true`, 100 in flight);
 *   memory again: per spectator = the difference / 1,000. Then the players
 *   broadcast, one after another, 10 events/s in all, for 10 s; the server's
 *   CPU time over the wall time of that phase is its load in cores.
 * - Turn B, the baseline, in a fresh server child: the same 10 players, then
 *   1,000 idle clients (players, automatic placement: 100 shards of 10);
 *   per idle client = the difference / 1,000. Turns ABAB, figures the mean.
 * - In order: every spectator's list of (sender, seq) is the same list, of
 *   all 100 events, each sender's seqs rising.
 */
import type { ChildProcess } from 'node:child_process';
import { WebSocket } from 'ws';
import { stats, type BenchContext, type BenchOutcome } from './support/bench.js';
import { kb, measure, startServer, type Measure } from './support/dispatch-servers.js';

export const description =
  'Spectators: one shard of 10 players and 1,000 spectators on one node, 10 broadcasts/s: every spectator gets every one in order, server CPU, memory per spectator against an idle client.';

const PLAYERS = 10;
const WATCHERS = Number(process.env['SPECTATORS_COUNT'] ?? 1_000);
const EVENTS_PER_SECOND = 10;
const SECONDS = Number(process.env['SPECTATORS_SECONDS'] ?? 10);
const CYCLES = Number(process.env['SPECTATORS_CYCLES'] ?? 2);
const IN_FLIGHT = 100;

interface Client {
  readonly socket: WebSocket;
  /** Relayed events as "sender:seq", in arrival order. */
  readonly events: string[];
  watchers: number;
}

/** Opens a socket and joins with `extra`; resolves once `joined` came. */
function join(port: number, extra: Record<string, unknown>): Promise<Client> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/dispatch`, { perMessageDeflate: false });
  const client: Client = { socket, events: [], watchers: 0 };
  return new Promise((resolve, reject) => {
    socket.once('open', () => socket.send(JSON.stringify({ type: 'join', v: 2, id: 1, projectId: 'bench', kind: 'browser', ...extra })));
    socket.on('message', (data: Buffer) => {
      const text = data.toString();
      // The hot path of this process: 100,000 frames in 10 s; only the fields needed are read.
      if (text.startsWith('{"type":"event"')) {
        const frame = JSON.parse(text) as { from: string; seq: number };
        client.events.push(`${frame.from}:${frame.seq}`);
        return;
      }
      const frame = JSON.parse(text) as { type: string; count?: number; error?: { code: string } };
      if (frame.type === 'joined') resolve(client);
      else if (frame.type === 'watchers') client.watchers = frame.count ?? 0;
      else if (frame.type === 'error' && frame.error) reject(new Error(`join refused: ${frame.error.code}`));
    });
    socket.once('error', reject);
    socket.once('close', (code) => reject(new Error(`closed (${code}) before joining`)));
  });
}

async function joinMany(port: number, count: number, extra: (i: number) => Record<string, unknown>): Promise<Client[]> {
  const clients: Client[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      clients.push(await join(port, extra(i)));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return clients;
}

const heapOf = (m: Measure): number => m.heapUsed + m.external;

interface TurnA {
  rssPerSpectator: number;
  heapPerSpectator: number;
  cores: number;
  cpuMs: number;
  wallMs: number;
  sent: number;
  complete: number;
  inOrder: number;
  watchersTold: number;
  clientCpuMs: number;
}

/**
 * A fresh server with the players in 'stage', then WATCHERS more joins with `join`'s fields: the
 * server's memory just before and after those joins. `body` runs with all of it; then every socket
 * and the server end, also on failure.
 */
async function afterPlayersAnd<T>(
  join: () => Record<string, unknown>,
  body: (run: { child: ChildProcess; players: Client[]; joined: Client[]; before: Measure; after: Measure }) => Promise<T>,
): Promise<T> {
  const { child, port } = await startServer('ours', { args: ['open'] });
  const sockets: WebSocket[] = [];
  try {
    const players = await joinMany(port, PLAYERS, () => ({ shardName: 'stage', maxConnectionsPerShard: PLAYERS }));
    sockets.push(...players.map((p) => p.socket));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = await measure(child);
    const joined = await joinMany(port, WATCHERS, join);
    sockets.push(...joined.map((c) => c.socket));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const after = await measure(child);
    return await body({ child, players, joined, before, after });
  } finally {
    for (const socket of sockets) socket.terminate();
    child.kill('SIGKILL');
  }
}

function turnA(): Promise<TurnA> {
  return afterPlayersAnd(
    () => ({ shardName: 'stage', spectator: true }),
    async ({ child, players, joined: watchers, before, after }) => {
      // The broadcasts: the players in turn, 10 per second in all.
      const seqs = new Array<number>(PLAYERS).fill(0);
      const total = EVENTS_PER_SECOND * SECONDS;
      const cpuStart = await measure(child);
      const clientCpu = process.cpuUsage();
      const started = performance.now();
      for (let n = 0; n < total; n++) {
        const due = started + (n * 1000) / EVENTS_PER_SECOND;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const p = n % PLAYERS;
        players[p]!.socket.send(JSON.stringify({ type: 'emit', seq: ++seqs[p]!, name: 'move', payload: { n, x: 0.5, y: 0.25 }, ts: Date.now() }));
      }
      // Until every spectator has them all (bounded: 30 s more), then the CPU of the phase.
      const deadline = performance.now() + 30_000;
      while (watchers.some((w) => w.events.length < total) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const wallMs = performance.now() - started;
      const cpuEnd = await measure(child);
      const client = process.cpuUsage(clientCpu);
      const cpuMs = (cpuEnd.cpu.user + cpuEnd.cpu.system - cpuStart.cpu.user - cpuStart.cpu.system) / 1000;
      const reference = watchers[0]!.events.join();
      const risingPerSender = (events: readonly string[]): boolean => {
        const last = new Map<string, number>();
        for (const event of events) {
          const [from, seq] = event.split(':') as [string, string];
          if (Number(seq) <= (last.get(from) ?? 0)) return false;
          last.set(from, Number(seq));
        }
        return true;
      };
      return {
        rssPerSpectator: (after.rss - before.rss) / WATCHERS,
        heapPerSpectator: (heapOf(after) - heapOf(before)) / WATCHERS,
        cores: cpuMs / wallMs,
        cpuMs,
        wallMs,
        sent: total,
        complete: watchers.filter((w) => w.events.length === total).length,
        inOrder: watchers.filter((w) => w.events.join() === reference && risingPerSender(w.events)).length,
        watchersTold: players.filter((p) => p.watchers === WATCHERS).length,
        clientCpuMs: (client.user + client.system) / 1000,
      };
    },
  );
}

function turnB(): Promise<{ rssPerClient: number; heapPerClient: number }> {
  return afterPlayersAnd(
    () => ({ maxConnectionsPerShard: 10 }),
    ({ before, after }) => Promise.resolve({ rssPerClient: (after.rss - before.rss) / WATCHERS, heapPerClient: (heapOf(after) - heapOf(before)) / WATCHERS }),
  );
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const a: TurnA[] = [];
  const b: { rssPerClient: number; heapPerClient: number }[] = [];
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const spectators = await turnA();
    a.push(spectators);
    context.log(
      `turn A${cycle + 1}: ${kb(spectators.rssPerSpectator)} RSS, ${kb(spectators.heapPerSpectator)} heap+external per spectator; ${spectators.complete}/${WATCHERS} spectators got all ${spectators.sent}, ${spectators.inOrder} in the one order; server ${spectators.cpuMs.toFixed(0)} ms CPU in ${spectators.wallMs.toFixed(0)} ms (${spectators.cores.toFixed(3)} cores); players told ${WATCHERS} watch: ${spectators.watchersTold}/${PLAYERS}; this process ${spectators.clientCpuMs.toFixed(0)} ms CPU`,
    );
    const idle = await turnB();
    b.push(idle);
    context.log(`turn B${cycle + 1}: ${kb(idle.rssPerClient)} RSS, ${kb(idle.heapPerClient)} heap+external per idle client`);
  }
  const mean = (values: readonly number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;
  const rssSpectator = mean(a.map((t) => t.rssPerSpectator));
  const heapSpectator = mean(a.map((t) => t.heapPerSpectator));
  const rssIdle = mean(b.map((t) => t.rssPerClient));
  const heapIdle = mean(b.map((t) => t.heapPerClient));
  const cores = stats(a.map((t) => t.cores));
  const everyOne = a.every((t) => t.complete === WATCHERS && t.inOrder === WATCHERS);
  context.log(
    `\n${PLAYERS} players + ${WATCHERS} spectators in one shard, one node; ${EVENTS_PER_SECOND} broadcasts/s for ${SECONDS} s; turns ABAB ×${CYCLES}; baseline: ${WATCHERS} idle clients (players in shards of 10) in a fresh server.`,
  );
  context.log(
    `memory per spectator ${kb(rssSpectator)} RSS / ${kb(heapSpectator)} heap+external; per idle client ${kb(rssIdle)} / ${kb(heapIdle)} (spectator / idle: RSS ${(rssSpectator / rssIdle).toFixed(2)}×, heap ${(heapSpectator / heapIdle).toFixed(2)}×); server load while broadcasting: median ${cores.median.toFixed(3)} cores, max ${cores.max.toFixed(3)}.`,
  );
  return {
    targets: [
      {
        name: `every spectator gets every broadcast, in order (${WATCHERS} spectators, ${EVENTS_PER_SECOND * SECONDS} events, ${CYCLES} turns)`,
        pass: everyOne,
        detail: a.map((t) => `${t.complete} complete, ${t.inOrder} in order`).join('; '),
      },
      {
        name: `the server below one core at ${EVENTS_PER_SECOND} broadcasts/s`,
        pass: cores.max < 1,
        detail: `median ${cores.median.toFixed(3)}, max ${cores.max.toFixed(3)} cores`,
      },
      {
        name: 'memory per spectator ≤ an idle client’s (heap+external, and RSS)',
        pass: heapSpectator <= heapIdle && rssSpectator <= rssIdle,
        detail: `spectator ${kb(heapSpectator)} heap, ${kb(rssSpectator)} RSS; idle client ${kb(heapIdle)} heap, ${kb(rssIdle)} RSS`,
      },
    ],
    data: { players: PLAYERS, spectators: WATCHERS, eventsPerSecond: EVENTS_PER_SECOND, seconds: SECONDS, turnsA: a, turnsB: b },
  };
}
