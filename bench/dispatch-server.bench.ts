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
import { bytes, type BenchContext, type BenchOutcome } from './support/bench.js';
import { kb, mean, pairedRatio, runTurn, SERVER_NAMES, turnsTable, type Turn } from './support/dispatch-servers.js';

export const description = 'Signaling server: joins per second and memory per idle client for 10,000 clients in 1,000 shards, against PeerServer.';

const CLIENTS = 10_000;
const IN_FLIGHT = 200;
/** ABBA cycles: one server's joins/s moves by ±20 % between turns on a shared 2-core machine. */
const CYCLES = 3;

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const turns: Record<'ours' | 'peer', Turn[]> = { ours: [], peer: [] };
  // ABBA: drift in the machine's load over the run weighs on both servers alike.
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    for (const kind of ['ours', 'peer', 'peer', 'ours'] as const) {
      const turn = await runTurn(kind, CLIENTS, IN_FLIGHT);
      turns[kind].push(turn);
      context.log(`turn ${turns.ours.length + turns.peer.length}: ${kind} ${turn.joinsPerSecond.toFixed(0)} joins/s, ${(turn.rssPerClient / 1024).toFixed(1)} KB RSS per client`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  context.log(
    `${bytes(CLIENTS)} clients, ${IN_FLIGHT} joins in flight, same ws client, same machine, same run; turns ABBA (ours, PeerServer, PeerServer, ours) ×${CYCLES}, figures the mean of the turns.`,
  );
  context.log(
    'Ours: join in the handshake as the browser client sends it (v2), 1,000 shards of 10, peer ids issued, presence to the shard. PeerServer: peer id registered, OPEN.\n',
  );
  context.log(
    turnsTable(
      [
        { name: SERVER_NAMES.ours, turns: turns.ours },
        { name: SERVER_NAMES.peer, turns: turns.peer },
      ],
      CLIENTS,
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
        detail: `${ours.joinsPerSecond.toFixed(0)} vs ${peer.joinsPerSecond.toFixed(0)}; paired median ${pairedRatio(turns.ours, turns.peer, 'joinsPerSecond').toFixed(2)}×`,
      },
      {
        name: 'less memory per client than PeerServer (RSS)',
        pass: ours.rssPerClient < peer.rssPerClient,
        detail: `${kb(ours.rssPerClient)} vs ${kb(peer.rssPerClient)}; paired median ${pairedRatio(turns.ours, turns.peer, 'rssPerClient').toFixed(2)}×`,
      },
    ],
    data: { clients: CLIENTS, inFlight: IN_FLIGHT, order: 'ABBA', turns },
  };
}
