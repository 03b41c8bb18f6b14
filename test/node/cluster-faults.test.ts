// The fault suite (issue 23): three signaling nodes on one real redis-server,
// faults injected deterministically (a node SIGSTOPped for twice its lease,
// Redis SIGSTOPped, Redis killed and restarted empty, a node killed), clients
// that reconnect and resume by themselves, and the invariants checked by a
// checker of its own (cluster-checker.ts) from what was recorded: samples of
// Redis and of every node's `info` taken every SAMPLE_MS throughout, every
// client's frames, every event sent and received.
//
// Each scenario has a project of its own, so one scenario's leftovers (an
// overfilled shard, a member that never left) cannot pass for another's.
// Waits are for conditions with generous bounds; only the faults themselves
// are timed (a SIGSTOP lasts as long as it says).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { WebSocket } from 'ws';
import { controlUrl } from '../../signaling/backend-dispatch.js';
import { DispatchSession } from '../../guest/dispatch/session.js';
import type { SocketLike } from '../../guest/dispatch/types.js';
import { isPlatformError } from '../../protocol/errors.js';
import { decodeRecord, RedisKeys } from '../../signaling/store/redis-keys.js';
import {
  capacityInClients,
  capacityInSamples,
  eventsExactlyOnce,
  oneShardPerMember,
  presenceConverged,
  report,
  summary,
  type ClientHistory,
  type ListObservation,
  type ShardSample,
  type Verdict,
} from './cluster-checker.js';
import { NodeProcess, RedisProcess, skipRedis } from './redis-support.js';
import { Raw, sleep, TOKEN } from './signaling-support.js';

/** Short, so a stall of twice the lease takes seconds; the nodes renew every third of it. */
const LEASE_MS = 2_000;
const CAPACITY = 10;
const SAMPLE_MS = 150;
/** Each client emits one numbered event this often while connected. */
const EMIT_MS = 400;
/** One project per scenario (see the top). */
const PROJECTS = ['nofault', 'stall', 'hang', 'restart', 'kill'] as const;
type Project = (typeof PROJECTS)[number];
const KEYS = new RedisKeys('pk:');

/**
 * A client as an application runs it: the library's own session core (the one
 * `PlatformBackend.Dispatch` wraps: relay, reconnection, resume with its id),
 * with a tap on its socket that records every frame in and every event out.
 * A join refused (SHARD_FULL, UNAVAILABLE, a timeout) is tried again; a session
 * that gave up (evicted and refused on resume) connects afresh.
 */
class FaultClient {
  readonly session: DispatchSession;
  readonly joins: { atMs: number; clientId: string; shardName: string; resumed: boolean }[] = [];
  readonly drops: number[] = [];
  readonly sent: { k: number; atMs: number; clientId: string }[] = [];
  readonly told = new Set<number>();
  readonly received: { from: string; k: number }[] = [];
  readonly refusals: string[] = [];
  readonly #kBySeq = new Map<number, number>();
  #k = 0;
  #running = false;
  #emitting = false;
  #loops: Promise<void>[] = [];

  constructor(
    readonly name: string,
    urls: readonly string[],
    readonly config: { shardName?: string; maxConnectionsPerShard: number },
    readonly run: Run,
    /** A client that may never get in (an extra joiner of a full named shard). */
    readonly mayWait = false,
  ) {
    this.session = new DispatchSession({
      url: urls.map(controlUrl),
      projectId: run.project,
      projectToken: TOKEN,
      kind: 'backend',
      createSocket: (target) => this.#socket(target),
      reconnectInitialDelayMs: 100,
      reconnectMaxDelayMs: 1_000,
      requestTimeoutMs: 5_000,
      receiveOwnBroadcasts: false,
    });
    // Errors are recorded through the frames; without a listener the library would print each one.
    this.session.onError(() => undefined);
    this.session.onConnectedClientsChanged((list) => {
      const shardName = this.session.connectionInfo?.shardName ?? '?';
      if (list.length > run.capacityOf(shardName)) run.lists.push({ atMs: run.now(), client: this.name, shardName, length: list.length, from: 'presence' });
    });
  }

  #socket(target: string): SocketLike {
    const ws = new WebSocket(target, [], { perMessageDeflate: false });
    let joined = false;
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Record<string, unknown>;
      if (frame['type'] === 'joined') {
        joined = true;
        const shardName = frame['shardName'] as string;
        this.joins.push({ atMs: this.run.now(), clientId: frame['clientId'] as string, shardName, resumed: frame['resumed'] === true });
        const length = (frame['members'] as unknown[]).length;
        if (length > this.run.capacityOf(shardName)) this.run.lists.push({ atMs: this.run.now(), client: this.name, shardName, length, from: 'joined' });
      } else if (frame['type'] === 'event' && frame['name'] === 'n') {
        this.received.push({ from: frame['from'] as string, k: (frame['payload'] as { k: number }).k });
      } else if (frame['type'] === 'error' && typeof frame['seq'] === 'number') {
        const k = this.#kBySeq.get(frame['seq']);
        if (k !== undefined) this.told.add(k);
      }
    });
    ws.on('close', () => {
      // Only a socket that had joined counts as a drop: a refused join's socket closes by design.
      if (joined && this.#running) this.drops.push(this.run.now());
    });
    const send = ws.send.bind(ws);
    Object.assign(ws, {
      send: (text: string) => {
        const frame = JSON.parse(text) as Record<string, unknown>;
        if (frame['type'] === 'emit' && frame['name'] === 'n') this.#kBySeq.set(frame['seq'] as number, (frame['payload'] as { k: number }).k);
        send(text);
      },
    });
    return ws as unknown as SocketLike;
  }

  /** Connects, and keeps it connected (a bounded loop: it ends with {@link stop}). */
  start(): void {
    this.#running = true;
    this.#loops.push(this.#keepConnected());
  }

  startEmitting(): void {
    this.#emitting = true;
    this.#loops.push(this.#emit());
  }

  stopEmitting(): void {
    this.#emitting = false;
  }

  get connected(): boolean {
    return this.session.state === 'connected';
  }

  async #keepConnected(): Promise<void> {
    const end = Date.now() + 120_000;
    while (this.#running && Date.now() < end) {
      const state = this.session.state;
      if (state === 'idle' || state === 'closed') {
        try {
          await this.session.connect(this.config);
        } catch (error) {
          this.refusals.push(isPlatformError(error) ? error.code : String(error));
          await sleep(150 + Math.random() * 100);
        }
        continue;
      }
      await sleep(100);
    }
  }

  async #emit(): Promise<void> {
    const end = Date.now() + 120_000;
    // Spread over the interval, so the clients do not emit in lockstep.
    await sleep(Math.random() * EMIT_MS);
    while (this.#emitting && Date.now() < end) {
      const info = this.session.connectionInfo;
      if (this.session.state === 'connected' && info) {
        const k = ++this.#k;
        this.sent.push({ k, atMs: this.run.now(), clientId: info.clientId });
        this.session.emitEvent('n', { k }).catch(() => undefined);
      }
      await sleep(EMIT_MS);
    }
  }

  history(): ClientHistory {
    return {
      name: this.name,
      joins: this.joins,
      drops: this.drops,
      sent: this.sent,
      told: this.told,
      received: this.received,
      finalList: this.session.connectedClients.map((member) => member.clientId),
      connected: this.connected,
    };
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#emitting = false;
    await this.session.disconnect().catch(() => undefined);
    await Promise.all(this.#loops);
  }
}

/** Reads the project's shards straight from Redis (a client of its own, with a short command timeout: a hung Redis gives no sample). */
async function readRedis(redis: Redis, project: string): Promise<{ sizes: Map<string, number>; members: Map<string, string[]>; online: Map<string, string[]> }> {
  const base = KEYS.project(project);
  const sizeHash = await redis.hgetall(`${base}size`);
  const keys = await redis.keys(`${base}m:*`);
  const sizes = new Map(Object.entries(sizeHash).map(([shard, size]) => [shard, Number(size)]));
  const members = new Map<string, string[]>();
  const online = new Map<string, string[]>();
  const records = await Promise.all(keys.map((key) => redis.hgetall(key)));
  keys.forEach((key, i) => {
    const shard = key.slice(`${base}m:`.length);
    const all = Object.entries(records[i]!);
    members.set(
      shard,
      all.map(([id]) => id),
    );
    online.set(
      shard,
      all.filter(([id, value]) => decodeRecord(id, value).record.online).map(([id]) => id),
    );
    if (!sizes.has(shard) && all.length > 0) sizes.set(shard, all.length);
  });
  return { sizes, members, online };
}

/** One scenario's recording: the clock, the clients, the samples. */
class Run {
  readonly t0 = Date.now();
  readonly clients: FaultClient[] = [];
  readonly lists: ListObservation[] = [];
  readonly samples: ShardSample[] = [];
  readonly #probes = new Map<string, { raw: Raw; busy: boolean }>();
  #sampling: Promise<void> | null = null;
  #samplingOn = false;
  #redisBusy = false;

  constructor(
    readonly project: Project,
    readonly redis: Redis,
    readonly nodes: () => readonly NodeProcess[],
  ) {}

  now(): number {
    return Date.now() - this.t0;
  }

  capacityOf(_shardName: string): number {
    return CAPACITY;
  }

  /** A client whose home is node `home` (the others follow in its URL list, for its reconnections). */
  client(home: number, config: { shardName?: string } = {}, mayWait = false): FaultClient {
    const nodes = this.nodes();
    const urls = nodes.map((_, i) => nodes[(home + i) % nodes.length]!.url);
    const client = new FaultClient(
      `${config.shardName ?? 'auto'}-${this.clients.length}@n${(home % nodes.length) + 1}`,
      urls,
      { ...config, maxConnectionsPerShard: CAPACITY },
      this,
      mayWait,
    );
    this.clients.push(client);
    client.start();
    return client;
  }

  /** Probes (one joined socket per node, in a shard of its own) for `info`, and the sampling loop. */
  async startSampling(): Promise<void> {
    for (const node of this.nodes()) {
      const raw = new Raw(node.url);
      const join = () => raw.join({ projectId: this.project, kind: 'backend', projectToken: TOKEN, shardName: `probe-${node.id}`, maxConnectionsPerShard: CAPACITY });
      let joined = await join();
      // A node that was stopped in the scenario before renews its lease first: UNAVAILABLE is the answer to retry.
      for (let tries = 0; joined.type === 'error' && (joined['error'] as { code?: string }).code === 'UNAVAILABLE' && tries < 50; tries++) {
        await sleep(100);
        joined = await join();
      }
      assert.equal(joined.type, 'joined', `probe on ${node.id}: ${JSON.stringify(joined)}`);
      this.#probes.set(node.id, { raw, busy: false });
    }
    this.#samplingOn = true;
    this.#sampling = this.#sampleLoop();
  }

  async #sampleLoop(): Promise<void> {
    const end = Date.now() + 120_000;
    while (this.#samplingOn && Date.now() < end) {
      this.#sampleOnce();
      await sleep(SAMPLE_MS);
    }
  }

  /** Starts one sample of each side unless that side's last one is still waiting (a stopped process answers nothing). */
  #sampleOnce(): void {
    if (!this.#redisBusy) {
      this.#redisBusy = true;
      const atMs = this.now();
      readRedis(this.redis, this.project)
        .then(({ sizes, members }) => this.samples.push({ atMs, source: 'redis', sizes, members }))
        .catch(() => undefined)
        .finally(() => (this.#redisBusy = false));
    }
    for (const [id, probe] of this.#probes) {
      if (probe.busy || probe.raw.closed) continue;
      probe.busy = true;
      const atMs = this.now();
      probe.raw
        .request({ type: 'info' }, 2_000)
        .then((answer) => {
          if (answer.type !== 'info') return;
          const shards = answer['shards'] as { shardName: string; numConnectedClients: number }[];
          this.samples.push({ atMs, source: `info ${id}`, sizes: new Map(shards.map((shard) => [shard.shardName, shard.numConnectedClients])) });
        })
        .catch(() => undefined)
        .finally(() => (probe.busy = false));
    }
  }

  /** The clients that should be connected (all but extra joiners of a full shard). */
  get settled(): boolean {
    return this.clients.every((client) => client.mayWait || client.connected);
  }

  /** Waits for a condition, polling; false when `timeoutMs` passed (the checker then says what is wrong). */
  async until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      if (await condition()) return true;
      await sleep(100);
    }
    return condition();
  }

  /** Every verdict, from the recording and one last read of Redis. */
  async verdicts(): Promise<Verdict[]> {
    const truth = await readRedis(this.redis, this.project);
    this.samples.push({ atMs: this.now(), source: 'redis', sizes: truth.sizes, members: truth.members });
    const histories = this.clients.map((client) => client.history());
    const events = eventsExactlyOnce(histories);
    return [
      capacityInSamples(this.samples, CAPACITY, 'redis'),
      capacityInSamples(this.samples, CAPACITY, 'info'),
      capacityInClients(this.lists, this.clients.length, CAPACITY),
      oneShardPerMember(this.samples),
      presenceConverged(histories, truth.online),
      { ...events, checked: `${events.checked}${events.told > 0 ? `, ${events.told} missing but told to their sender` : ''}` },
    ];
  }

  /**
   * After the faults: every client back, emission stopped, then a bounded wait
   * for presence to converge and the last events to arrive. Then the verdicts.
   */
  async finish(settleMs = 20_000): Promise<Verdict[]> {
    await this.until(() => this.settled, settleMs);
    for (const client of this.clients) client.stopEmitting();
    await this.until(async () => {
      const truth = await readRedis(this.redis, this.project).catch(() => null);
      if (!truth) return false;
      const histories = this.clients.map((client) => client.history());
      return presenceConverged(histories, truth.online).violations.length === 0 && eventsExactlyOnce(histories).violations.length === 0;
    }, 10_000);
    this.#samplingOn = false;
    await this.#sampling;
    return this.verdicts();
  }

  async close(): Promise<void> {
    this.#samplingOn = false;
    await this.#sampling;
    await Promise.all(this.clients.map((client) => client.stop()));
    for (const { raw } of this.#probes.values()) raw.close();
  }
}

/** Logs what was checked and fails with the checker's messages when an invariant did not hold. */
function assertHeld(name: string, verdicts: readonly Verdict[], extra: string[] = []): void {
  console.log(`${name}:\n${summary(verdicts)}${extra.length ? `\n${extra.join('\n')}` : ''}`);
  const failed = report(verdicts);
  assert.ok(failed === '', `${name}: invariants broken\n${failed}`);
}

describe('faults on 3 nodes sharing a real Redis: capacity, membership, presence and events hold', { skip: skipRedis }, () => {
  let redis: RedisProcess;
  let nodes: NodeProcess[] = [];
  let reader: Redis;

  before(async () => {
    redis = await RedisProcess.start();
    // Every client comes from 127.0.0.1: the per-address limits (tested in signaling-hostile.test.ts) are off,
    // and refusals are allowed freely (a client retrying a full shard is no attacker).
    const options = [
      ...PROJECTS.flatMap((project) => ['--project', `${project}:${TOKEN}`]),
      ...['--lease-ms', String(LEASE_MS), '--grace-ms', '10000'],
      ...['--max-unjoined-sockets-per-address', '0', '--max-shards-per-address-per-minute', '0', '--max-joins-per-address-per-minute', '0', '--max-refusals', '100000'],
    ];
    nodes = await Promise.all(['n1', 'n2', 'n3'].map((id) => NodeProcess.start(redis.url, id, options)));
    // The checker's own view of Redis: a hung Redis must give no sample rather than a late one.
    reader = new Redis(redis.url, { commandTimeout: 500, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 100, lazyConnect: true });
    reader.on('error', () => undefined);
    await reader.connect();
  });
  after(async () => {
    // FAULT_LOG=1: what each node logged (lease, rebuilds, sweeps), to read beside the checker's messages.
    if (process.env['FAULT_LOG']) for (const node of nodes) console.log(`── ${node.id}\n${node.output.join('')}`);
    reader?.disconnect();
    await Promise.all(nodes.map((node) => node.stop()));
    await redis?.stop();
  });

  const live = (): NodeProcess[] => nodes.filter((node) => node.child.exitCode === null && node.child.signalCode === null);

  it('no fault: 150 concurrent joins over 3 nodes; every presence list converges to the shard as Redis has it', async () => {
    const run = new Run('nofault', reader, live);
    try {
      await run.startSampling();
      for (let i = 0; i < 150; i++) run.client(i % 3);
      assert.ok(await run.until(() => run.settled, 30_000), `joined: ${run.clients.filter((c) => c.connected).length} of 150`);
      for (const client of run.clients) client.startEmitting();
      await sleep(2_000);
      assertHeld('no fault', await run.finish());
    } finally {
      await run.close();
    }
  });

  it('a node SIGSTOPped for twice its lease while joins go on through the others, then SIGCONT', async () => {
    const run = new Run('stall', reader, live);
    try {
      await run.startSampling();
      for (let i = 0; i < 30; i++) run.client(i % 3);
      assert.ok(await run.until(() => run.settled, 20_000), 'the first 30 joined');
      for (const client of run.clients) client.startEmitting();
      await sleep(1_000);
      const stall = nodes[0]!.pauseFor(2 * LEASE_MS);
      // Joins through n2 and n3 while n1 is stopped: after its lease lapses the others sweep its members and these take their places.
      for (let i = 0; i < 20; i++) {
        run.client(1 + (i % 2)).startEmitting();
        await sleep((2 * LEASE_MS) / 20);
      }
      await stall;
      assertHeld('node stall', await run.finish());
    } finally {
      await run.close();
    }
  });

  it('Redis SIGSTOPped for 3 s while clients join and emit: a join meanwhile is answered UNAVAILABLE within about a second', async () => {
    const run = new Run('hang', reader, live);
    const probe = new Raw(nodes[1]!.url);
    try {
      await run.startSampling();
      for (let i = 0; i < 30; i++) run.client(i % 3);
      assert.ok(await run.until(() => run.settled, 20_000), 'the first 30 joined');
      for (const client of run.clients) client.startEmitting();
      await probe.opened;
      await sleep(1_000);
      const hangMs = 3_000;
      const hang = redis.pauseFor(hangMs);
      const hungAt = Date.now();
      await sleep(300);
      for (let i = 0; i < 9; i++) run.client(i % 3).startEmitting();
      const askedAt = Date.now();
      const answer = probe.join({ projectId: 'hang', kind: 'backend', projectToken: TOKEN, maxConnectionsPerShard: CAPACITY }).then(
        (frame) => ({ frame, afterMs: Date.now() - askedAt, redisHung: Date.now() - hungAt < hangMs }),
        (error: unknown) => ({ frame: { type: 'none', error: String(error) }, afterMs: Date.now() - askedAt, redisHung: false }),
      );
      await hang;
      const verdicts = await run.finish();
      const joinDuringHang = await answer;
      const code = (joinDuringHang.frame['error'] as { code?: string } | undefined)?.code;
      // About a second, with room for a busy machine: the hang lasts 3 s, so an answer that waits for Redis comes after 2.7 s.
      const prompt = joinDuringHang.frame.type === 'error' && code === 'UNAVAILABLE' && joinDuringHang.redisHung && joinDuringHang.afterMs <= 2_000;
      const joinVerdict: Verdict = {
        invariant: 'a join while Redis hangs is answered UNAVAILABLE within about a second (≤ 2 s), before Redis is back',
        violations: prompt
          ? []
          : [
              `the join sent 300 ms into the hang was answered ${joinDuringHang.frame.type}${code ? ` ${code}` : ''} after ${joinDuringHang.afterMs} ms, ${joinDuringHang.redisHung ? 'while Redis still hung' : 'after Redis was back'}`,
            ],
        checked: `answered after ${joinDuringHang.afterMs} ms`,
      };
      assertHeld('Redis hang', [...verdicts, joinVerdict]);
    } finally {
      probe.close();
      await run.close();
    }
  });

  it('Redis killed and restarted empty while joins go on, with a named shard (lobby) filled from all 3 nodes and one of them slow to reconnect', async () => {
    const run = new Run('restart', reader, live);
    try {
      await run.startSampling();
      for (let i = 0; i < 10; i++) run.client(i % 3, { shardName: 'lobby' });
      for (let i = 0; i < 20; i++) run.client(i % 3);
      assert.ok(await run.until(() => run.settled, 20_000), 'the lobby and 20 others joined');
      // More joiners of the full lobby on every node, retrying: after the restart, the first node back admits them unless the lobby's holders are back first.
      for (let i = 0; i < 12; i++) run.client(i % 3, { shardName: 'lobby' }, true);
      for (const client of run.clients) client.startEmitting();
      await sleep(1_000);
      await redis.kill();
      await sleep(1_000);
      // Which node reconnects first is a race (the issue's probe saw the lobby overfilled in 1 run of 3). Made
      // deterministic: n1, which holds lobby members, is the slow one. Stopped before Redis is back, for less than
      // its lease, it cannot re-register while n2 and n3 already admit joiners; on waking it puts its members back.
      const slow = nodes[0]!.pauseFor(LEASE_MS * 0.75);
      await redis.startAgain();
      for (let i = 0; i < 9; i++) run.client(i % 3).startEmitting();
      await slow;
      assertHeld('Redis restart', await run.finish());
    } finally {
      await run.close();
    }
  });

  // Last: it takes node 3 away for good.
  it('kill -9 of a node holding members: its clients resume on the others', async () => {
    const run = new Run('kill', reader, live);
    try {
      await run.startSampling();
      for (let i = 0; i < 30; i++) run.client(i % 3);
      assert.ok(await run.until(() => run.settled, 20_000), 'the first 30 joined');
      for (const client of run.clients) client.startEmitting();
      await sleep(1_000);
      await nodes[2]!.kill9();
      for (let i = 0; i < 10; i++) {
        run.client(i % 2).startEmitting();
        await sleep(100);
      }
      const verdicts = await run.finish();
      const moved = run.clients.filter((client) => client.name.endsWith('@n3') && client.joins.length > 1);
      const resumed = moved.filter((client) => client.joins.at(-1)!.resumed && client.joins.at(-1)!.clientId === client.joins[0]!.clientId);
      assertHeld('node kill', verdicts, [`${moved.length} clients of n3 rejoined elsewhere, ${resumed.length} of them resumed with their id`]);
    } finally {
      await run.close();
    }
  });
});
