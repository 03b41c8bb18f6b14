/**
 * The signaling server against servers that do the same work (issue 18):
 * 10,000 clients join 1,000 rooms of 10 on ours, on Socket.IO (a room join
 * and a presence broadcast of the room's member list) and on Colyseus
 * (`joinOrCreate` on a room with `maxClients` 10 whose state holds the
 * members), with PeerServer as a reference (it registers a peer id and tells
 * nobody), in the same run, each server alone in a fresh child process.
 * Targets: ahead of Socket.IO and of Colyseus in joins per second and in
 * memory per idle client.
 *
 * Method (bench/support/dispatch-servers.ts):
 * - The same clients for all: this one process, the same `ws` client without
 *   compression, 200 joins in flight, each client writing what the server's
 *   own client library writes and done at the frame that gives it its room's
 *   member list (ours `joined`, Socket.IO `joined` (the ack of its connect),
 *   Colyseus the room's full state; PeerServer `OPEN`).
 * - The same placement: rooms of 10 filled in order (ours: automatic
 *   placement with `maxConnectionsPerShard` 10; Socket.IO: the first room
 *   with a free seat; Colyseus: its matchmaker). Each turn prints the rooms
 *   and members the server holds, which must read 1,000 / 10,000.
 * - Turns ABBA-style over the four servers (ours, Socket.IO, Colyseus,
 *   PeerServer, PeerServer, Colyseus, Socket.IO, ours), three times. Paired ratios
 *   are the median of ours' i-th turn over the other's i-th turn, the
 *   targets are judged on them; means of the turns are printed too.
 * - Memory: the server process after three full GCs 1.5 s after the last
 *   join, minus the same process idle before the clients came.
 */
import { bytes, ratio, table, type BenchContext, type BenchOutcome } from './support/bench.js';
import { kb, mean, pairedRatio, runTurn, SERVER_NAMES, turnsTable, type ServerKind, type Turn } from './support/dispatch-servers.js';

export const description =
  'Signaling server against Socket.IO and Colyseus (PeerServer as a reference): joins per second and memory per idle client, 10,000 clients in 1,000 rooms of 10.';

const CLIENTS = 10_000;
const IN_FLIGHT = 200;
/** ABBA cycles over the four servers (6 turns each): one server's joins/s moves by ±20 % between turns on a shared 2-core machine. */
const CYCLES = 3;
const ORDER: readonly ServerKind[] = ['ours', 'socketio', 'colyseus', 'peer', 'peer', 'colyseus', 'socketio', 'ours'];

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const turns: Record<ServerKind, Turn[]> = { ours: [], peer: [], socketio: [], colyseus: [] };
  let done = 0;
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    for (const kind of ORDER) {
      const turn = await runTurn(kind, CLIENTS, IN_FLIGHT);
      turns[kind].push(turn);
      context.log(
        `turn ${++done}: ${kind} ${turn.joinsPerSecond.toFixed(0)} joins/s, ${kb(turn.rssPerClient)} RSS and ${kb(turn.heapPerClient)} heap+external per client, ${bytes(turn.rooms)} rooms / ${bytes(turn.members)} members`,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  context.log(
    `\n${bytes(CLIENTS)} clients, ${IN_FLIGHT} joins in flight, same ws client, same machine, same run; turns ${ORDER.join(', ')} ×${CYCLES}, figures the mean of the turns.\n`,
  );
  const others: readonly ServerKind[] = ['socketio', 'colyseus', 'peer'];
  context.log(
    turnsTable(
      (['ours', ...others] as const).map((kind) => ({ name: SERVER_NAMES[kind], turns: turns[kind] })),
      CLIENTS,
    ),
  );
  context.log('\nPaired ratios, ours over each (median of the pairs of i-th turns): joins/s above 1 and memory below 1 are ours ahead.\n');
  context.log(
    table(
      ['ours against', 'joins/s', 'RSS per client', 'heap+external per client'],
      others.map((kind) => [
        SERVER_NAMES[kind],
        ratio(pairedRatio(turns.ours, turns[kind], 'joinsPerSecond')),
        ratio(pairedRatio(turns.ours, turns[kind], 'rssPerClient')),
        ratio(pairedRatio(turns.ours, turns[kind], 'heapPerClient')),
      ]),
    ),
  );
  const targets = (['socketio', 'colyseus'] as const).flatMap((kind) => {
    const name = kind === 'socketio' ? 'Socket.IO' : 'Colyseus';
    const joins = pairedRatio(turns.ours, turns[kind], 'joinsPerSecond');
    const rss = pairedRatio(turns.ours, turns[kind], 'rssPerClient');
    return [
      {
        name: `more joins/s than ${name}`,
        pass: joins > 1,
        detail: `${mean(turns.ours, 'joinsPerSecond').toFixed(0)} vs ${mean(turns[kind], 'joinsPerSecond').toFixed(0)} joins/s; paired median ${joins.toFixed(2)}×`,
      },
      {
        name: `less memory per idle client than ${name} (RSS)`,
        pass: rss < 1,
        detail: `${kb(mean(turns.ours, 'rssPerClient'))} vs ${kb(mean(turns[kind], 'rssPerClient'))}; paired median ${rss.toFixed(2)}×; heap+external ${kb(mean(turns.ours, 'heapPerClient'))} vs ${kb(mean(turns[kind], 'heapPerClient'))}`,
      },
    ];
  });
  return { targets, data: { clients: CLIENTS, inFlight: IN_FLIGHT, order: ORDER, cycles: CYCLES, turns } };
}
