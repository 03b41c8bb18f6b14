// One of the cluster-scale harness's client processes: it holds its share of
// idle clients on one signaling node (its "home"), each a raw control socket
// that speaks what the kit's backend client (`PlatformBackend.Dispatch`, its
// control-connection.ts) speaks, without the client library's weight, so that
// one process can hold ~17,000 of them under the 20,000-file limit:
// - join: the socket opens, then the join goes as its first frame (a backend
//   client's project token never rides in the handshake), kind 'backend' with
//   the project token, automatic placement in shards of 10; done at `joined`;
// - a socket that closes (its node was killed) reconnects after the kit's
//   backoff (first delay 250 ms, jittered over its upper half, doubling per
//   failed attempt up to 30 s) to another node, with `resume: { clientId,
//   resumeToken }` from its last `joined`, as the kit's client does. Which
//   other node: client i goes to the i-th of the live nodes other than its
//   own, round robin, as a load balancer in front of the nodes would spread
//   them (the kit's client takes the next URL of its list; lists handed out
//   in rotated orders do the same). A refused or failed attempt moves on to
//   the next node.
//
//   argv: <config JSON> { urls, home, count, inFlight, projectId, projectToken, capacity }
//   parent → child: { join: true }          join `count` clients to `urls[home]`
//                   { down: i }             node i is gone: never retry it (the parent killed it)
//                   { urls: [...] }         the nodes now (a spare added before the kill)
//                   { status: true }        answer with the counts below
//                   { ids: true }           answer with the client ids of the joined clients
//   child → parent: { bench: 'ready' } | { bench: 'joined', … } | { bench: 'status', … } | { bench: 'ids', ids }
import { WebSocket } from 'ws';
import { SIGNALING_VERSION } from '../../protocol/signaling.js';

interface Config {
  urls: readonly string[];
  readonly home: number;
  readonly count: number;
  readonly inFlight: number;
  readonly projectId: string;
  readonly projectToken: string;
  readonly capacity: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as Config;

/** The kit's backoff (control-connection.ts retry): 250 ms first, doubling, 30 s cap, jitter on the upper half. */
const INITIAL_DELAY_MS = 250;
const MAX_DELAY_MS = 30_000;
/** Attempts of one client's first join before the ramp gives up (bounded: the run must end). */
const MAX_FIRST_ATTEMPTS = 8;

interface Client {
  readonly index: number;
  socket: WebSocket | null;
  node: number;
  joined: boolean;
  clientId: string;
  resumeToken: string;
  attempt: number;
  /** Date.now() of its last `joined`; 0 before. */
  joinedAt: number;
  /** Date.now() when its socket last closed while joined; 0 when it never lost one. */
  lostAt: number;
  /** Rejoins after a loss: with the same client id, or placed anew. */
  resumed: number;
  placedAnew: number;
}

const clients: Client[] = [];
const down = new Set<number>();
const refusals: Record<string, number> = {};
/** Sockets closed while their client was a member, by close code. */
const closesWhileJoined: Record<number, number> = {};
let attempts = 0;
/** Date.now() of the first and last rejoin of each kind; 0: none yet (JSON over IPC has no Infinity). */
const resumedSpan = { first: 0, last: 0 };
const anewSpan = { first: 0, last: 0 };

function send(message: Record<string, unknown>): void {
  process.send?.({ ...message });
}

/** Opens client's socket to its node and joins (resuming when it has an id); resolves at `joined`, rejects on anything else. */
function connect(client: Client): Promise<void> {
  attempts++;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(config.urls[client.node]!, { perMessageDeflate: false });
    client.socket = socket;
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      refusals[why] = (refusals[why] ?? 0) + 1;
      socket.terminate();
      reject(new Error(why));
    };
    socket.once('open', () => {
      socket.send(
        JSON.stringify({
          type: 'join',
          v: SIGNALING_VERSION,
          id: 1,
          projectId: config.projectId,
          kind: 'backend',
          projectToken: config.projectToken,
          maxConnectionsPerShard: config.capacity,
          ...(client.clientId === '' ? {} : { resume: { clientId: client.clientId, resumeToken: client.resumeToken } }),
        }),
      );
    });
    socket.on('message', (data) => {
      if (settled) return; // presence and the server's frames of an idle member: nothing to do
      const text = String(data);
      if (text.startsWith('{"type":"joined"')) {
        const frame = JSON.parse(text) as { clientId: string; resumeToken: string; resumed: boolean };
        settled = true;
        if (client.lostAt !== 0) {
          const kept = frame.clientId === client.clientId;
          if (kept) client.resumed++;
          else client.placedAnew++;
          // When each kind of rejoin happened: a new id after the dead node's lease says its sweep came first.
          const span = kept ? resumedSpan : anewSpan;
          if (span.first === 0) span.first = Date.now();
          span.last = Math.max(span.last, Date.now());
        }
        client.clientId = frame.clientId;
        client.resumeToken = frame.resumeToken;
        client.joined = true;
        client.joinedAt = Date.now();
        client.attempt = 0;
        resolve();
      } else if (text.startsWith('{"type":"error"')) {
        const code = (JSON.parse(text) as { code?: string }).code ?? 'error';
        fail(code);
      }
    });
    socket.once('error', (error: Error & { code?: string }) => fail(error.code ?? 'socket error'));
    socket.once('close', (code: number) => {
      if (!settled) return fail('closed before joined');
      // Why members were lost (1006: the server terminated the socket or died; 4xxx: a close it gave).
      if (client.joined) closesWhileJoined[code] = (closesWhileJoined[code] ?? 0) + 1;
      if (client.socket !== socket) return;
      client.socket = null;
      if (!client.joined) return;
      // Its node went away: reconnect elsewhere, as the kit's client does.
      client.joined = false;
      client.lostAt = Date.now();
      client.node = nextNode(client, client.node);
      retry(client);
    });
  });
}

/** The client's next node: the i-th live node other than `from`, round robin. */
function nextNode(client: Client, from: number): number {
  const live = config.urls.map((_, i) => i).filter((i) => i !== from && !down.has(i));
  if (live.length === 0) return from;
  return live[client.index % live.length]!;
}

/** The next delay of the client's backoff. */
function backoff(client: Client): number {
  const base = Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** Math.min(client.attempt, 20));
  client.attempt++;
  return base / 2 + Math.random() * (base / 2);
}

function retry(client: Client): void {
  const delay = backoff(client);
  setTimeout(() => {
    connect(client).catch(() => {
      // Refused or failed: the next node, after the next delay.
      client.node = nextNode(client, client.node);
      retry(client);
    });
  }, delay);
}

async function joinAll(): Promise<void> {
  const started = Date.now();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < config.count) {
      const client: Client = {
        index: next++,
        socket: null,
        node: config.home,
        joined: false,
        clientId: '',
        resumeToken: '',
        attempt: 0,
        joinedAt: 0,
        lostAt: 0,
        resumed: 0,
        placedAnew: 0,
      };
      clients.push(client);
      // A refused first join (a node answering UNAVAILABLE under load) is tried again on the same node
      // after the backoff, as the kit's client would (there on its next URL), a bounded number of times.
      for (;;) {
        try {
          await connect(client);
          break;
        } catch (error) {
          if (client.attempt >= MAX_FIRST_ATTEMPTS) throw error;
          await new Promise((resolve) => setTimeout(resolve, backoff(client)));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(config.inFlight, config.count) }, lane));
  const ended = Date.now();
  send({ bench: 'joined', count: clients.length, started, ended, attempts, refusals: { ...refusals }, closesWhileJoined: { ...closesWhileJoined } });
}

function status(): Record<string, unknown> {
  let joined = 0;
  let lost = 0;
  let lostAndBack = 0;
  let lastBack = 0;
  let firstLost = Number.POSITIVE_INFINITY;
  let resumed = 0;
  let placedAnew = 0;
  const perNode: number[] = config.urls.map(() => 0);
  for (const client of clients) {
    if (client.joined) {
      joined++;
      perNode[client.node]!++;
    }
    if (client.lostAt !== 0) {
      lost++;
      firstLost = Math.min(firstLost, client.lostAt);
      if (client.joined) {
        lostAndBack++;
        lastBack = Math.max(lastBack, client.joinedAt);
      }
    }
    resumed += client.resumed;
    placedAnew += client.placedAnew;
  }
  return {
    bench: 'status',
    clients: clients.length,
    joined,
    lost,
    lostAndBack,
    lastBack,
    firstLost: lost > 0 ? firstLost : 0,
    resumed,
    placedAnew,
    resumedSpan: { ...resumedSpan },
    anewSpan: { ...anewSpan },
    perNode,
    attempts,
    refusals,
  };
}

process.on('message', (message: { join?: true; down?: number; urls?: string[]; status?: true; ids?: true }) => {
  if (message.urls) {
    config.urls = message.urls;
  } else if (message.join) {
    joinAll().catch((error: unknown) => send({ bench: 'error', message: error instanceof Error ? error.message : String(error) }));
  } else if (typeof message.down === 'number') {
    down.add(message.down);
  } else if (message.status) {
    send(status());
  } else if (message.ids) {
    send({ bench: 'ids', ids: clients.filter((client) => client.joined).map((client) => client.clientId) });
  }
});
// The parent ends the run (or died): nothing to close gracefully, the nodes are going away too.
process.on('disconnect', () => process.exit(0));
send({ bench: 'ready' });
