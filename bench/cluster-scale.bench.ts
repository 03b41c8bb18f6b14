/**
 * The cluster at scale (issue 23, bullet 7): idle clients over 6 signaling
 * nodes on one Redis on this machine, then kill -9 of one node and the time
 * until every one of its clients is a member again elsewhere.
 *
 *   npm run bench -- cluster-scale                          # 10,000 clients
 *   CLUSTER_CLIENTS=100000 npm run bench -- cluster-scale   # the issue's figure
 *   CLUSTER_SPARE=1 …                                        # the spare node (below) at any size
 *   CLUSTER_LEASE_MS=10000 …                                 # another lease than 3 s
 *   CLUSTER_HEARTBEAT_MS=60000 …                              # the nodes' ping interval (default theirs, 10 s)
 *   CLUSTER_DEADLINE_S=1500 …                                 # a longer deadline than 240 s + 5 ms per client
 *   CLUSTER_LOG=/tmp/cluster.log …                            # every node's lease lines and every sample, also on failure
 *
 * Why a cluster: one process here may hold 20,000 files (`ulimit -n`, hard
 * limit too), so 100,000 clients are spread over 6 nodes (~16,700 sockets
 * each) and 6 client processes (one per node, the same share), all on
 * loopback (127.0.0.1; connect() picks ports per destination, so 7 server
 * ports give room for far more than 100,000 sockets from one address).
 *
 * - Redis: Debian's redis-server on a free loopback port, no persistence
 *   (test/node/redis-support.ts RedisProcess).
 * - Nodes: `signaling/bin.ts --redis` each in its own process
 *   (redis-support.ts NodeProcess: a shared --secret-key, so a resume token
 *   from one node is good on the others), `--lease-ms 3000`, and the
 *   per-address limits off (every client comes from 127.0.0.1).
 * - Clients (support/cluster-clients-child.ts): raw control sockets speaking
 *   the kit's backend client's join (kind 'backend' with the project token,
 *   automatic placement in shards of 10), 64 joins in flight per process,
 *   all 6 processes at once. On close they resume on another node with
 *   `resume: { clientId, resumeToken }` after the kit's backoff, spread
 *   round robin over the live nodes.
 * - Measured after the joins and 3 s of idle: each node's RSS (VmRSS, no
 *   forced GC: the nodes are the production binary) minus its RSS idle
 *   before the clients came, per client it holds; Redis `used_memory` minus
 *   the same before, per client; joins per second per node during the ramp
 *   (its clients over its own ramp's duration) and for the cluster.
 * - Failover: kill -9 of node 1. The time from the kill until the last of its
 *   clients has `joined` on another node. Sampled every 250 ms meanwhile and
 *   checked once Redis has swept the dead node: no shard over capacity (in
 *   Redis), exactly N members, none on two shards, none left on the dead
 *   node, and the members are exactly the clients' own ids.
 * - When 5 nodes cannot hold N clients under the file limit (100,000 / 5 =
 *   20,000 sockets each, over the limit with the node's own files), a
 *   spare 7th node joins the cluster before the kill, with no clients, as an
 *   operator keeps spare capacity; the dead node's clients spread over the 6
 *   live nodes. The run says when it does.
 * - Bounded: the run fails after a deadline that grows with N (5 min at
 *   10,000, 12 min at 100,000) and every process it started is stopped by
 *   its pid, also on failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { decodeRecord } from '../signaling/store/redis-keys.js';
import { SCRIPTS } from '../signaling/store/redis-scripts.js';
import { NodeProcess, RedisProcess, skipRedis } from '../test/node/redis-support.js';
import { PROJECT, TOKEN } from '../test/node/signaling-support.js';
import { bytes, table, type BenchContext, type BenchOutcome } from './support/bench.js';

export const description =
  'The cluster at scale: idle clients over 6 nodes on one Redis (RSS and Redis memory per client, joins/s per node), then kill -9 of one node and the time until its clients are members elsewhere.';

const DEFAULT_CLIENTS = 10_000;
const CLIENTS = Number(process.env['CLUSTER_CLIENTS'] ?? DEFAULT_CLIENTS);
const NODES = 6;
const CAPACITY = 10;
/** A few seconds, so that a dead node's leftovers are swept within the run; CLUSTER_LEASE_MS to try another. */
const LEASE_MS = Number(process.env['CLUSTER_LEASE_MS'] ?? 3_000);
const IN_FLIGHT_PER_PROCESS = 64;
/**
 * The server's ping interval (a socket silent for two is terminated); CLUSTER_HEARTBEAT_MS to set it, else the
 * server's default (10 s). A client process holds ~16,700 sockets: starved of CPU, it may not answer every ping in time.
 */
const HEARTBEAT_MS = process.env['CLUSTER_HEARTBEAT_MS'] ? Number(process.env['CLUSTER_HEARTBEAT_MS']) : undefined;
/** Sockets one node or client process may hold: 20,000 files less its own (Redis, listening socket, stdio, tsx's esbuild). */
const SOCKETS_PER_PROCESS = 19_500;
const SETTLE_MS = 3_000;
/** How long a node may take to start: at load 30 one did not within 15 s (tsx compiles it first). */
const NODE_START_MS = 90_000;
const RECOVERY_DEADLINE_MS = 120_000;
/** 12 min at 100,000; CLUSTER_DEADLINE_S for a machine that others load (the ramp's pace follows the CPU it gets). */
const DEADLINE_MS = process.env['CLUSTER_DEADLINE_S'] ? Number(process.env['CLUSTER_DEADLINE_S']) * 1000 : 240_000 + CLIENTS * 5;
const KEYS = 'pk:';

const CLIENT_CHILD = fileURLToPath(new URL('./support/cluster-clients-child.ts', import.meta.url));
const controlUrl = (node: NodeProcess): string => node.url.replace(/^http/, 'ws') + '/dispatch';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The kernel's view of a process's memory: resident now and at its peak. */
function procStatus(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

interface Status {
  clients: number;
  joined: number;
  lost: number;
  lostAndBack: number;
  lastBack: number;
  firstLost: number;
  resumed: number;
  placedAnew: number;
  /** Date.now() of the first and last rejoin that kept its client id, and of those placed anew. */
  resumedSpan: { first: number; last: number };
  anewSpan: { first: number; last: number };
  perNode: number[];
  attempts: number;
  refusals: Record<string, number>;
}

/** The span covering both (0: none). */
function joinSpans(a: { first: number; last: number }, b: { first: number; last: number }): { first: number; last: number } {
  const firsts = [a.first, b.first].filter((time) => time > 0);
  return { first: firsts.length > 0 ? Math.min(...firsts) : 0, last: Math.max(a.last, b.last) };
}

/** A client process and what it answers. */
class Clients {
  #waiting = new Map<string, (message: Record<string, unknown>) => void>();
  private constructor(readonly child: ChildProcess) {
    child.on('message', (message: Record<string, unknown>) => {
      const kind = String(message['bench']);
      const waiter = this.#waiting.get(kind) ?? (kind === 'error' ? [...this.#waiting.values()][0] : undefined);
      if (!waiter) return;
      this.#waiting.delete(kind);
      waiter(message);
    });
  }

  static start(config: Record<string, unknown>, children: ChildProcess[]): Promise<Clients> {
    const child = spawn(process.execPath, ['--import', 'tsx', CLIENT_CHILD, JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(child);
    const clients = new Clients(child);
    return new Promise((resolve, reject) => {
      clients.#waiting.set('ready', () => resolve(clients));
      child.once('exit', (code) => reject(new Error(`client process exited with ${code}`)));
    });
  }

  ask(request: Record<string, unknown>, answer: string): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      this.#waiting.set(answer, (message) => (message['bench'] === 'error' ? reject(new Error(`client process: ${String(message['message'])}`)) : resolve(message)));
      this.child.send(request);
    });
  }

  tell(message: Record<string, unknown>): void {
    this.child.send(message);
  }

  async status(): Promise<Status> {
    return (await this.ask({ status: true }, 'status')) as unknown as Status;
  }
}

/** Redis's `INFO memory` field. */
async function redisMemory(redis: Redis): Promise<{ used: number; rss: number }> {
  const info = await redis.info('memory');
  const field = (name: string): number => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return { used: field('used_memory'), rss: field('used_memory_rss') };
}

/** Shard sizes as Redis counts them (`{P}:size`): the largest and the sum. */
async function sizes(redis: Redis): Promise<{ max: number; sum: number; shards: number }> {
  const values = (await redis.hvals(`${KEYS}{${PROJECT}}:size`)).map(Number);
  return { max: Math.max(0, ...values), sum: values.reduce((a, b) => a + b, 0), shards: values.length };
}

/** Every member record in Redis, read shard by shard: the checker's view after the failover. */
async function census(
  redis: Redis,
): Promise<{ members: number; shards: number; overCapacity: string[]; onTwoShards: number; byNode: Map<string, number>; ids: Set<string>; sizeMismatches: number }> {
  const base = `${KEYS}{${PROJECT}}:`;
  const shardNames = await redis.hkeys(`${base}shards`);
  const sizeHash = await redis.hgetall(`${base}size`);
  const pipeline = redis.pipeline();
  for (const shard of shardNames) pipeline.hgetall(`${base}m:${shard}`);
  const results = (await pipeline.exec()) ?? [];
  const ids = new Set<string>();
  const byNode = new Map<string, number>();
  const overCapacity: string[] = [];
  let members = 0;
  let onTwoShards = 0;
  let sizeMismatches = 0;
  results.forEach(([error, value], i) => {
    if (error) throw error;
    const records = value as Record<string, string>;
    const shard = shardNames[i]!;
    const count = Object.keys(records).length;
    if (count > CAPACITY) overCapacity.push(`${shard}: ${count}`);
    if (Number(sizeHash[shard] ?? 0) !== count) sizeMismatches++;
    for (const [clientId, record] of Object.entries(records)) {
      members++;
      if (ids.has(clientId)) onTwoShards++;
      ids.add(clientId);
      const { node } = decodeRecord(clientId, record);
      byNode.set(node, (byNode.get(node) ?? 0) + 1);
    }
  });
  return { members, shards: shardNames.length, overCapacity, onTwoShards, byNode, ids, sizeMismatches };
}

/** Prints Redis's SLOWLOG: the slowest commands, with the store's script names for EVALSHA. */
async function slowest(redis: Redis, context: BenchContext): Promise<void> {
  const names = new Map(Object.entries(SCRIPTS).map(([name, script]) => [script.sha, name]));
  const entries = (await redis.call('SLOWLOG', 'GET', '128')) as [number, number, number, string[]][];
  if (entries.length === 0) return;
  const byName = new Map<string, { count: number; maxUs: number; totalUs: number }>();
  for (const [, , micros, args] of entries) {
    const command = String(args[0] ?? '').toUpperCase();
    const name = command === 'EVALSHA' ? `script ${names.get(String(args[1])) ?? String(args[1]).slice(0, 8)}` : command;
    const entry = byName.get(name) ?? { count: 0, maxUs: 0, totalUs: 0 };
    entry.count++;
    entry.maxUs = Math.max(entry.maxUs, micros);
    entry.totalUs += micros;
    byName.set(name, entry);
  }
  const total = Number(await redis.call('SLOWLOG', 'LEN'));
  context.log(
    `\nRedis SLOWLOG (commands over 10 ms; the last ${entries.length} of ${total} kept): ${[...byName.entries()]
      .sort((a, b) => b[1].maxUs - a[1].maxUs)
      .map(([name, entry]) => `${name} ×${entry.count}, longest ${(entry.maxUs / 1000).toFixed(0)} ms`)
      .join('; ')}`,
  );
}

const mb = (value: number): string => `${(value / 1024 ** 2).toFixed(0)} MB`;
const kb = (value: number): string => `${(value / 1024).toFixed(2)} KB`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** What the run started, for its `finally`. */
interface Processes {
  redis?: RedisProcess;
  nodes: NodeProcess[];
  children: ChildProcess[];
  client?: Redis;
  stopSampler?: () => void;
  /** The sampler's figures (members in Redis and the epoch counter, each second), for CLUSTER_LOG. */
  samples?: readonly { at: number; members: number; epoch: number }[];
  /** The nodes' lines about leases (lapses, re-registrations, sweeps, renewals failed, late or slow), stamped when read. */
  leaseLines: string[];
}

const LEASE_LINE = /had lost its lease|re-registered|removed \d+ members of expired|lease renewal|emptied/;

/** Keeps `node`'s lines about leases, each with the time it was read (the node's stderr is a pipe: within milliseconds). */
function watchLeaseLines(node: NodeProcess, into: string[]): void {
  node.child.stderr?.on('data', (chunk: Buffer) => {
    for (const line of String(chunk).split('\n')) if (LEASE_LINE.test(line)) into.push(`  ${new Date().toISOString().slice(11, 23)} ${line.replace(/^platform-kit: /, '')}`);
  });
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  if (skipRedis) {
    context.log(`skipped: ${skipRedis}`);
    return { targets: [] };
  }
  if (!Number.isInteger(CLIENTS) || CLIENTS < NODES * CAPACITY || CLIENTS / NODES > SOCKETS_PER_PROCESS) {
    throw new Error(
      `CLUSTER_CLIENTS must be an integer from ${NODES * CAPACITY} to ${NODES * SOCKETS_PER_PROCESS} (one node and one client process hold a sixth each), got ${process.env['CLUSTER_CLIENTS']}`,
    );
  }
  const processes: Processes = { nodes: [], children: [], leaseLines: [] };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`cluster-scale: not done within ${DEADLINE_MS / 1000} s`)), DEADLINE_MS);
  });
  try {
    return await Promise.race([measureCluster(context, processes), deadline]);
  } finally {
    clearTimeout(timer);
    // What the nodes said about their leases (redis-store.ts logs each lapse, re-registration and sweep), also on failure.
    const notes = processes.leaseLines;
    const logFile = process.env['CLUSTER_LOG'];
    if (logFile) {
      const samples = (processes.samples ?? []).map((sample) => `${new Date(sample.at).toISOString()} members ${sample.members} epoch ${sample.epoch}`);
      writeFileSync(logFile, `${notes.join('\n')}\n\nsamples:\n${samples.join('\n')}\n`);
      context.log(`\nevery lease line and sample: ${logFile}`);
    }
    if (notes.length > 0) context.log(`\nthe nodes' log about leases (${notes.length} lines${notes.length > 40 ? ', the first 40' : ''}):\n${notes.slice(0, 40).join('\n')}`);
    processes.stopSampler?.();
    // Redis's slowest commands of the run (over 10 ms, its default threshold): a script that holds Redis longer
    // than the nodes' command timeout makes every node's renewal wait behind it.
    if (processes.client) await slowest(processes.client, context).catch(() => undefined);
    for (const child of processes.children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    processes.client?.disconnect();
    await Promise.all(processes.nodes.map((node) => node.stop().catch(() => node.child.kill('SIGKILL'))));
    await processes.redis?.stop();
  }
}

async function measureCluster(context: BenchContext, processes: Processes): Promise<BenchOutcome> {
  const redisProcess = await RedisProcess.start();
  processes.redis = redisProcess;
  const redis = new Redis(redisProcess.url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  processes.client = redis;
  const nodeArgs = [
    '--lease-ms',
    String(LEASE_MS),
    ...(HEARTBEAT_MS ? ['--heartbeat-ms', String(HEARTBEAT_MS)] : []),
    '--max-joins-per-address-per-minute',
    '0',
    '--max-shards-per-address-per-minute',
    '0',
    '--max-unjoined-sockets-per-address',
    '0',
  ];
  const started = await Promise.all(Array.from({ length: NODES }, (_, i) => NodeProcess.start(redisProcess.url, `s${i + 1}`, nodeArgs, NODE_START_MS)));
  processes.nodes.push(...started);
  for (const node of started) watchLeaseLines(node, processes.leaseLines);
  const nodes = [...started];
  await sleep(1_500);
  const idle = nodes.map((node) => procStatus(node.child.pid!));
  const redisIdle = await redisMemory(redis);
  context.log(
    `${bytes(CLIENTS)} clients over ${NODES} nodes (lease ${LEASE_MS} ms, ping every ${HEARTBEAT_MS ?? 10_000} ms, shards of ${CAPACITY}, per-address limits off), ${NODES} client processes of ${IN_FLIGHT_PER_PROCESS} joins in flight each, one per node, all at once; redis-server ${redisProcess.url}`,
  );

  // The clients: a sixth per node (the first nodes take the remainder).
  const shares = nodes.map((_, i) => Math.floor(CLIENTS / NODES) + (i < CLIENTS % NODES ? 1 : 0));
  const urls = nodes.map(controlUrl);
  const groups = await Promise.all(
    shares.map((count, home) =>
      Clients.start({ urls, home, count, inFlight: IN_FLIGHT_PER_PROCESS, projectId: PROJECT, projectToken: TOKEN, capacity: CAPACITY }, processes.children),
    ),
  );
  // Every second from here on: members in Redis and the epoch counter (each lease lapse re-registers a node with a new epoch).
  const firstEpoch = Number(await redis.get(`${KEYS}epoch`));
  const samples: { at: number; members: number; epoch: number }[] = [];
  processes.samples = samples;
  const sampler = setInterval(() => {
    void Promise.all([sizes(redis), redis.get(`${KEYS}epoch`)]).then(
      ([sample, epoch]) => samples.push({ at: Date.now(), members: sample.sum, epoch: Number(epoch) }),
      () => undefined,
    );
  }, 1_000);
  processes.stopSampler = () => clearInterval(sampler);
  const lapses = (from: number, to: number): number => {
    const within = samples.filter((sample) => sample.at >= from && sample.at <= to);
    return within.length === 0 ? 0 : Math.max(...within.map((sample) => sample.epoch)) - (samples.filter((sample) => sample.at < from).at(-1)?.epoch ?? firstEpoch);
  };
  const drops = (): string => {
    // The largest fall of the member count between two samples: members swept from a node whose lease lapsed.
    let worst = 0;
    let peak = 0;
    for (const sample of samples) {
      peak = Math.max(peak, sample.members);
      worst = Math.max(worst, peak - sample.members);
    }
    return bytes(worst);
  };
  const ramps = (await Promise.all(groups.map((group) => group.ask({ join: true }, 'joined')))) as unknown as {
    count: number;
    started: number;
    ended: number;
    attempts: number;
    refusals: Record<string, number>;
    closesWhileJoined: Record<string, number>;
  }[];
  const rampCloses: Record<string, number> = {};
  for (const ramp of ramps) for (const [code, count] of Object.entries(ramp.closesWhileJoined)) rampCloses[code] = (rampCloses[code] ?? 0) + count;
  if (Object.keys(rampCloses).length > 0) context.log(`members whose socket closed during the ramp, by close code: ${JSON.stringify(rampCloses)}`);
  const rampMs = Math.max(...ramps.map((ramp) => ramp.ended)) - Math.min(...ramps.map((ramp) => ramp.started));
  const rampAttempts = ramps.reduce((sum, ramp) => sum + ramp.attempts, 0);
  const rampRefusals: Record<string, number> = {};
  for (const ramp of ramps) for (const [why, count] of Object.entries(ramp.refusals)) rampRefusals[why] = (rampRefusals[why] ?? 0) + count;
  await sleep(SETTLE_MS);
  const loaded = nodes.map((node) => procStatus(node.child.pid!));
  const redisLoaded = await redisMemory(redis);
  const before = await sizes(redis);
  const heldBy = await Promise.all(nodes.map((node) => redis.scard(`${KEYS}nm:${node.id}`)));
  const rows = nodes.map((node, i) => {
    const ramp = ramps[i]!;
    return {
      node: node.id,
      clients: heldBy[i]!,
      joinsPerSecond: ramp.count / ((ramp.ended - ramp.started) / 1000),
      idleRss: idle[i]!.rss,
      rss: loaded[i]!.rss,
      peakRss: loaded[i]!.hwm,
      rssPerClient: (loaded[i]!.rss - idle[i]!.rss) / heldBy[i]!,
    };
  });
  context.log('');
  context.log(
    table(
      ['node', 'clients (Redis)', 'joins/s during the ramp', 'RSS idle', 'RSS with clients', 'peak RSS', 'RSS per client over idle'],
      rows.map((row) => [row.node, bytes(row.clients), bytes(Math.round(row.joinsPerSecond)), mb(row.idleRss), mb(row.rss), mb(row.peakRss), kb(row.rssPerClient)]),
    ),
  );
  const clusterJoins = CLIENTS / (rampMs / 1000);
  const redisPerClient = (redisLoaded.used - redisIdle.used) / CLIENTS;
  const rssPerClient = rows.reduce((sum, row) => sum + (row.rss - row.idleRss), 0) / rows.reduce((sum, row) => sum + row.clients, 0);
  context.log(
    `\ncluster: ${bytes(before.sum)} members in ${bytes(before.shards)} shards (largest ${before.max}); ${bytes(Math.round(clusterJoins))} joins/s over the whole ramp (${seconds(rampMs)}); server RSS ${kb(rssPerClient)} per client over idle (all nodes); Redis used_memory ${mb(redisIdle.used)} → ${mb(redisLoaded.used)}, ${kb(redisPerClient)} per client (used_memory_rss ${mb(redisLoaded.rss)}); lease lapses during the ramp: ${lapses(0, Date.now())} (largest fall of the member count below its peak: ${drops()}); ${rampAttempts === CLIENTS ? 'every first join admitted at once' : `${bytes(rampAttempts - CLIENTS)} joins tried again during the ramp: ${JSON.stringify(rampRefusals)}`}`,
  );

  // Failover: kill -9 of node 1.
  const victim = nodes[0]!;
  const victimClients = heldBy[0]!;
  const survivors = nodes.slice(1);
  let spare: NodeProcess | null = null;
  // CLUSTER_SPARE=1 adds the spare at any size (to try that path at a small scale).
  if (CLIENTS / survivors.length > SOCKETS_PER_PROCESS || process.env['CLUSTER_SPARE'] === '1') {
    spare = await NodeProcess.start(redisProcess.url, `s${NODES + 1}`, nodeArgs, NODE_START_MS);
    processes.nodes.push(spare);
    watchLeaseLines(spare, processes.leaseLines);
    const all = [...nodes, spare].map(controlUrl);
    for (const group of groups) group.tell({ urls: all });
    context.log(
      `\n${CLIENTS / survivors.length <= SOCKETS_PER_PROCESS ? '(CLUSTER_SPARE=1) ' : ''}${survivors.length} nodes cannot hold ${bytes(CLIENTS)} sockets under the file limit (${bytes(Math.ceil(CLIENTS / survivors.length))} each, over ${bytes(SOCKETS_PER_PROCESS)}): a spare node ${spare.id} joined the cluster, with no clients, before the kill`,
    );
    await sleep(1_000);
  }
  const killedAt = Date.now();
  await victim.kill9();
  for (const group of groups) group.tell({ down: 0 });
  let maxShardDuring = 0;
  let minMembersDuring = Number.POSITIVE_INFINITY;
  let maxMembersDuring = 0;
  let totals: Status | null = null;
  let sweptAt = 0;
  while (Date.now() - killedAt < RECOVERY_DEADLINE_MS) {
    await sleep(250);
    const sample = await sizes(redis);
    // The dead node leaves the set of nodes when another node sweeps it (LUA_SWEEP), its lease run out.
    if (sweptAt === 0 && (await redis.sismember(`${KEYS}nodes`, victim.id)) === 0) sweptAt = Date.now();
    maxShardDuring = Math.max(maxShardDuring, sample.max);
    minMembersDuring = Math.min(minMembersDuring, sample.sum);
    maxMembersDuring = Math.max(maxMembersDuring, sample.sum);
    const statuses = await Promise.all(groups.map((group) => group.status()));
    totals = statuses.reduce((sum, status) => ({
      clients: sum.clients + status.clients,
      joined: sum.joined + status.joined,
      lost: sum.lost + status.lost,
      lostAndBack: sum.lostAndBack + status.lostAndBack,
      lastBack: Math.max(sum.lastBack, status.lastBack),
      firstLost: status.firstLost === 0 ? sum.firstLost : Math.min(sum.firstLost || Number.POSITIVE_INFINITY, status.firstLost),
      resumed: sum.resumed + status.resumed,
      placedAnew: sum.placedAnew + status.placedAnew,
      resumedSpan: joinSpans(sum.resumedSpan, status.resumedSpan),
      anewSpan: joinSpans(sum.anewSpan, status.anewSpan),
      perNode: sum.perNode.map((value, i) => value + (status.perNode[i] ?? 0)),
      attempts: sum.attempts + status.attempts,
      refusals: Object.fromEntries(
        [...new Set([...Object.keys(sum.refusals), ...Object.keys(status.refusals)])].map((key) => [key, (sum.refusals[key] ?? 0) + (status.refusals[key] ?? 0)]),
      ),
    }));
    if (totals.lost >= victimClients && totals.lostAndBack === totals.lost) break;
  }
  if (!totals) throw new Error('no status from the client processes');
  const recovered = totals.lost >= victimClients && totals.lostAndBack === totals.lost;
  const recoveryMs = totals.lastBack - killedAt;
  const noticeMs = totals.firstLost - killedAt;
  const span = (times: { first: number; last: number }): string => `${seconds(times.first - killedAt)} to ${seconds(times.last - killedAt)} after the kill`;
  const failedAfterKill = Object.fromEntries(
    Object.entries(totals.refusals)
      .map(([why, count]): [string, number] => [why, count - (rampRefusals[why] ?? 0)])
      .filter(([, count]) => count > 0),
  );
  context.log(
    `\nkill -9 of ${victim.id} (${bytes(victimClients)} clients): ${bytes(totals.lostAndBack)} of ${bytes(totals.lost)} lost clients joined again elsewhere ${recovered ? `${seconds(recoveryMs)} after the kill` : `when the wait ended (${seconds(RECOVERY_DEADLINE_MS)})`}; first close seen ${seconds(noticeMs)} after it; ${bytes(totals.resumed)} kept their client id and shard${totals.resumed > 0 ? ` (${span(totals.resumedSpan)})` : ''}, ${bytes(totals.placedAnew)} were placed anew${totals.placedAnew > 0 ? ` (${span(totals.anewSpan)})` : ''}; ${bytes(totals.attempts - rampAttempts)} attempts after the kill${Object.keys(failedAfterKill).length > 0 ? `, failed attempts: ${JSON.stringify(failedAfterKill)}` : ''}`,
  );

  // Redis after the dead node's lease: its leftovers swept, every member counted.
  const settleUntil = Date.now() + LEASE_MS * 4 + 10_000;
  while (Date.now() < settleUntil) {
    const left = await redis.scard(`${KEYS}nm:${victim.id}`);
    if (sweptAt === 0 && (await redis.sismember(`${KEYS}nodes`, victim.id)) === 0) sweptAt = Date.now();
    const sample = await sizes(redis);
    maxShardDuring = Math.max(maxShardDuring, sample.max);
    if (left === 0 && sample.sum === CLIENTS) break;
    await sleep(250);
  }
  const check = await census(redis);
  processes.stopSampler?.();
  const lapsesAfterKill = lapses(killedAt, Date.now());
  const idReplies = (await Promise.all(groups.map((group) => group.ask({ ids: true }, 'ids')))) as unknown as { ids: string[] }[];
  const clientIds = idReplies.flatMap((reply) => reply.ids);
  const missingInRedis = clientIds.filter((id) => !check.ids.has(id)).length;
  const notAClient = check.members - (clientIds.length - missingInRedis);
  const onDead = check.byNode.get(victim.id) ?? 0;
  const liveNodes = [...survivors, ...(spare ? [spare] : [])];
  context.log(
    `${victim.id} swept ${sweptAt === 0 ? 'not seen (every client of it had moved before its lease ran out, or the sample missed it)' : `${seconds(sweptAt - killedAt)} after the kill`} (lease ${LEASE_MS} ms, sampled every 250 ms). Redis after the sweep: ${bytes(check.members)} members in ${bytes(check.shards)} shards, ${check.overCapacity.length} over capacity (largest sampled during the failover: ${maxShardDuring}), ${check.onTwoShards} on two shards, ${onDead} left on ${victim.id}, ${check.sizeMismatches} shard size counters off; members during the failover ${bytes(minMembersDuring)} to ${bytes(maxMembersDuring)}; ${bytes(clientIds.length)} clients joined, ${missingInRedis} of them not in Redis, ${notAClient} members in Redis that no client holds`,
  );
  context.log(
    `lease lapses (re-registrations with a new epoch) from the kill to the census: ${lapsesAfterKill}; over the whole run: ${(samples.at(-1)?.epoch ?? firstEpoch) - firstEpoch - (spare ? 1 : 0)}`,
  );
  context.log(`members per node now: ${liveNodes.map((node) => `${node.id} ${bytes(check.byNode.get(node.id) ?? 0)}`).join(', ')}`);
  const after = liveNodes.map((node) => ({ id: node.id, ...procStatus(node.child.pid!) }));
  context.log(`RSS now: ${after.map((node) => `${node.id} ${mb(node.rss)} (peak ${mb(node.hwm)})`).join(', ')}`);

  const invariantsHold =
    check.overCapacity.length === 0 &&
    maxShardDuring <= CAPACITY &&
    check.onTwoShards === 0 &&
    onDead === 0 &&
    check.members === CLIENTS &&
    missingInRedis === 0 &&
    notAClient === 0;
  return {
    targets: [
      {
        name: `${bytes(CLIENTS)} idle clients joined over ${NODES} nodes`,
        pass: before.sum === CLIENTS,
        detail: `${bytes(before.sum)} members; ${bytes(Math.round(clusterJoins))} joins/s for the cluster, ${rows.map((row) => bytes(Math.round(row.joinsPerSecond))).join(' / ')} per node; RSS ${kb(rssPerClient)} per client over idle; Redis ${kb(redisPerClient)} per client`,
      },
      {
        name: `kill -9 of a node: all of its clients members elsewhere`,
        pass: recovered,
        detail: recovered
          ? `${bytes(victimClients)} clients in ${seconds(recoveryMs)}`
          : `${bytes(totals.lostAndBack)} of ${bytes(totals.lost)} after ${seconds(RECOVERY_DEADLINE_MS)}`,
      },
      {
        name: 'no node lost its lease during the run',
        pass: (samples.at(-1)?.epoch ?? firstEpoch) - firstEpoch - (spare ? 1 : 0) === 0,
        detail: `${(samples.at(-1)?.epoch ?? firstEpoch) - firstEpoch - (spare ? 1 : 0)} re-registrations with a new epoch (lease ${LEASE_MS} ms)`,
      },
      {
        name: 'no shard over capacity, exactly N members, none on two shards, none on the dead node',
        pass: invariantsHold,
        detail: `${bytes(check.members)} members, largest shard sampled ${maxShardDuring}, ${check.overCapacity.length} over, ${check.onTwoShards} on two shards, ${onDead} on ${victim.id}, ${missingInRedis + notAClient} mismatched with the clients`,
      },
    ],
    data: {
      clients: CLIENTS,
      nodes: NODES,
      leaseMs: LEASE_MS,
      capacity: CAPACITY,
      rows,
      rampMs,
      rampAttempts,
      rampRefusals,
      clusterJoins,
      redisIdle,
      redisLoaded,
      redisPerClient,
      rssPerClient,
      victim: victim.id,
      victimClients,
      spare: spare?.id ?? null,
      recoveryMs,
      noticeMs,
      lapsesAfterKill,
      samples,
      sweptMs: sweptAt === 0 ? null : sweptAt - killedAt,
      failedAfterKill,
      totals,
      check: { ...check, ids: undefined, byNode: Object.fromEntries(check.byNode) },
      maxShardDuring,
      minMembersDuring,
      maxMembersDuring,
    },
  };
}
