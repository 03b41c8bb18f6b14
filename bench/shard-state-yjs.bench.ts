/**
 * Shard state (issue 26): what a late joiner holds, how soon, and what the
 * server pays per state, against a Yjs server doing the same work.
 *
 * - Late join: 7 members hold a shard's state of 100 KB (each wrote its share
 *   of the map `state`, the same seeded values on every server); an 8th joins
 *   and is timed from `connect()` (y-websocket: from the provider's
 *   construction, which opens its socket) until its document holds every key.
 *   Three servers take turns, sample by sample, so drift hits them alike:
 *   the kit on one node, the kit on two nodes sharing a redis-server (members
 *   split between them, the joiner on either), and `@y/websocket-server`.
 * - Server memory per state: 40 shards of 100 KB on a fresh server, one
 *   member left in each; the server process's RSS after 10 states and after
 *   40, each read after a full garbage collection in the server (both sides
 *   are started with bench/support/gc-on-signal.mjs), and the slope between;
 *   beside it the same slope of the JS heap in use plus array buffers.
 * - `history` (bullet 4): a log of 100 chat messages handed to a joiner as the
 *   shard's last 100 events (`connect({ history: 100 })`, the ring's largest),
 *   against the same log kept in the state (a Y.Array of the last 100); bytes
 *   the joiner receives (a counting proxy in front of the server) and the time
 *   to hold the log. Also what a Y.Array ring costs after 2,000 messages
 *   trimmed to the last 100 (its tombstones stay).
 * - For scale, in the same turns: the kit's join alone (an empty named shard,
 *   no state attached), what every join pays before any state.
 *
 * Clients are Node processes' sockets in this process: the kit's backend
 * client (`PlatformBackend.Dispatch`, relay only) and y-websocket's
 * `WebsocketProvider` over `ws`. A late joiner's state comes from the
 * server's copy either way (the mesh only carries changes between members
 * already joined), so browsers would add their own start-up to both sides
 * and measure nothing of the state; eight Chromium pages per sample on two
 * shared cores would also drown the figure in noise.
 *
 * Targets: late join p50 ≤ 300 ms on one node and across two Redis nodes;
 * late join and server memory per state ≤ 1× the Yjs server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import type * as Y from 'yjs';
import { BENCH_LIMIT_ARGS, NodeProcess, RedisProcess, skipRedis } from '../test/node/redis-support.js';
import { bytes, ms, ratio, stats, table, type BenchContext, type BenchOutcome, type TargetCheck } from './support/bench.js';
import { startByteProxy } from './support/byte-proxy.js';
import { emitChat, joinKit, type KitMember } from './support/shard-state-clients.js';
import { startSignalingProcess, type SignalingProcess } from './support/signaling-process.js';
import { expectedKeys, stateBytes, whenKeys, writeShare } from './support/state-documents.js';
import { connectYjsClient, startYjsServer, yjsFlushed, type YjsClient, type YjsServer } from './support/yjs-baseline.js';
import { PROJECT, TOKEN } from '../test/node/signaling-support.js';
import { PlatformBackend } from '../signaling/index.js';

export const description =
  'Shard state: late joiner of a 100 KB state (8 members) on one node, two Redis nodes and @y/websocket-server; server memory per state; history ring against a log in the state.';

const MEMBERS = 8;
const STATE_BYTES = 100_000;
const JOIN_SAMPLES = 30;
/** States held in the memory measure, and how many of them come before its first reading (see memoryPerState). */
const MEMORY_SHARDS = 40;
const MEMORY_WARM_SHARDS = 10;
/** The ring's default and largest size (`historyEvents`, 100): the log handed both ways. */
const LOG_LENGTH = 100;
const LOG_MESSAGE_BYTES = 100;
const LONG_LOG = 2_000;
const WAIT_MS = 60_000;
const PLAIN_JOIN = 'kit, one node: join alone (no state)';
/** The same on the Redis nodes: what their join costs before any state (placement and members through Redis). */
const PLAIN_JOIN_REDIS = 'kit, two Redis nodes: join alone (no state)';
/** The kit's second figure of each late join: connect()'s promise resolved (after the clock's round trip), beside the state held. */
const RESOLVED = ': connect() resolved';
/** Generous limits: the bench joins from one address far more often than a person would. */
const NODE_ARGS = BENCH_LIMIT_ARGS;

/** A process's resident set in bytes (Linux /proc). */
function rssOf(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${child.pid}`);
  return Number(kb) * 1024;
}
const settle = (delayMs: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, delayMs));

/** One side of the comparison: how its members join a room, and the joiner. */
interface Side {
  readonly name: string;
  /** Joins `room` as member `index`; resolves once synced. */
  member(room: string, index: number): Promise<{ doc: Y.Doc; close(): Promise<void> | void }>;
  /** Joins `room` late; resolves with the time from connect() to the document holding `keys` keys, and (the kit) to connect()'s promise resolving. */
  lateJoin(room: string, sample: number, keys: number): Promise<LateJoin>;
}

/** One late join: connect() (y-websocket: the provider's construction) → the document holds every key; the kit's connect() → resolved. */
interface LateJoin {
  readonly heldMs: number;
  readonly resolvedMs?: number;
}

function kitSide(name: string, urls: readonly string[]): Side {
  return {
    name,
    async member(room, index) {
      const member = await joinKit(urls[index % urls.length]!, room);
      return member;
    },
    async lateJoin(room, sample, keys) {
      // The moment the document holds every key (within the join's handling, before connect()'s
      // promise settles), watched from before connect(): what the Yjs side's 'sync' marks.
      let held: Promise<number> | undefined;
      const joiner = await joinKit(urls[sample % urls.length]!, room, {
        beforeConnect: (doc) => {
          held = whenKeys(doc, keys, WAIT_MS).then(() => performance.now());
        },
      });
      const resolvedMs = performance.now() - joiner.connectCalledAt;
      const heldMs = (await held!) - joiner.connectCalledAt;
      await joiner.close();
      return { heldMs, resolvedMs };
    },
  };
}

function yjsSide(server: YjsServer): Side {
  return {
    name: '@y/websocket-server',
    async member(room) {
      const client = await connectYjsClient(server.url, room, WAIT_MS);
      return { doc: client.doc, close: () => client.close() };
    },
    async lateJoin(room, _sample, keys) {
      const started = performance.now();
      const client = await connectYjsClient(server.url, room, WAIT_MS);
      // 'sync' (connectYjsClient resolved) follows the applied SyncStep2 at once: the keys are there.
      await whenKeys(client.doc, keys, WAIT_MS);
      const elapsed = performance.now() - started;
      client.close();
      return { heldMs: elapsed };
    },
  };
}

/** Fills `room` on `side` with 7 members' shares; resolves once every member holds the whole state. Returns the members. */
async function fillRoom(side: Side, room: string): Promise<{ doc: Y.Doc; close(): Promise<void> | void }[]> {
  const members = [];
  for (let i = 0; i < MEMBERS - 1; i++) members.push(await side.member(room, i));
  members.forEach((member, i) => writeShare(member.doc, i, MEMBERS - 1, STATE_BYTES));
  const keys = expectedKeys(MEMBERS - 1, STATE_BYTES);
  await Promise.all(members.map((member) => whenKeys(member.doc, keys, WAIT_MS)));
  return members;
}

/** The kit's join alone: connect() to resolved in a fresh named shard, no state attached. */
async function plainJoin(url: string, sample: number): Promise<number> {
  const dispatch = new PlatformBackend.Dispatch({ projectId: PROJECT, projectToken: TOKEN, url });
  const started = performance.now();
  await dispatch.connect({ shardName: `plain-${sample}` });
  const elapsed = performance.now() - started;
  await dispatch.disconnect();
  return elapsed;
}

async function lateJoins(context: BenchContext, sides: readonly Side[], plainUrl: string, redisUrls: readonly string[]): Promise<Map<string, number[]>> {
  const keys = expectedKeys(MEMBERS - 1, STATE_BYTES);
  const held: { close(): Promise<void> | void }[] = [];
  const samples = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  try {
    const measured: Side[] = [];
    for (const side of sides) {
      try {
        const members = await fillRoom(side, 'late-join');
        held.push(...members);
        measured.push(side);
        context.log(`${side.name}: 7 members hold ${bytes(stateBytes(members[0]!.doc))} bytes of state (${keys} keys)`);
      } catch (error) {
        // A server that cannot hold the state (a store without it) is reported, not measured.
        samples.delete(side.name);
        context.log(`${side.name}: not measured: ${(error as Error).message}`);
      }
    }
    // One warm-up join each (module loading, JIT), then the sides take turns.
    for (const side of measured) await side.lateJoin('late-join', 0, keys);
    samples.set(PLAIN_JOIN, []);
    if (redisUrls.length > 0) samples.set(PLAIN_JOIN_REDIS, []);
    for (let sample = 0; sample < JOIN_SAMPLES; sample++) {
      for (const side of measured) {
        const join = await side.lateJoin('late-join', sample, keys);
        samples.get(side.name)!.push(join.heldMs);
        if (join.resolvedMs === undefined) continue;
        const resolvedName = `${side.name}${RESOLVED}`;
        if (!samples.has(resolvedName)) samples.set(resolvedName, []);
        samples.get(resolvedName)!.push(join.resolvedMs);
      }
      samples.get(PLAIN_JOIN)!.push(await plainJoin(plainUrl, sample));
      if (redisUrls.length > 0) samples.get(PLAIN_JOIN_REDIS)!.push(await plainJoin(redisUrls[sample % redisUrls.length]!, sample));
    }
  } finally {
    for (const member of held) await member.close();
  }
  return samples;
}

/** Node's flags for a server whose memory is measured: garbage collected on SIGUSR2 (bench/support/gc-on-signal.mjs). */
function gcNodeArgs(rootDir: string): string[] {
  return ['--expose-gc', '--import', pathToFileURL(join(rootDir, 'bench', 'support', 'gc-on-signal.mjs')).href];
}

/** What a server said after a full collection (gc-on-signal.mjs): its JS heap in use and its array buffers, bytes. */
interface Collected {
  readonly heapUsed: number;
  readonly arrayBuffers: number;
}

/** Has `child` (started with {@link gcNodeArgs}) collect its garbage; resolves with what it then holds, once it says so. */
function collectGarbage(child: ChildProcess): Promise<Collected> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      child.stdout!.off('data', onData);
      reject(new Error(`no gc-done from pid ${child.pid} within ${WAIT_MS} ms`));
    }, WAIT_MS);
    const onData = (chunk: Buffer): void => {
      seen += String(chunk);
      const line = /gc-done \d+ heapUsed (\d+) heapTotal \d+ external \d+ arrayBuffers (\d+)/.exec(seen);
      if (!line) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({ heapUsed: Number(line[1]), arrayBuffers: Number(line[2]) });
    };
    child.stdout!.on('data', onData);
    child.kill('SIGUSR2');
  });
}

/** A server's memory per state: RSS, and the JS heap plus array buffers it keeps, each per state. */
interface MemoryFigures {
  /** RSS (bytes) after the warm-up states and after all of them, each after a full collection. */
  readonly before: number;
  readonly after: number;
  /** (after − before) / the states between: the RSS each state adds. */
  readonly perState: number;
  /** The same slope of the JS heap in use plus array buffers: what the process keeps per state, without the heap's own growth. */
  readonly keptPerState: number;
}

/**
 * What one more state costs `child`: rooms of 100 KB, one member left in each; RSS read after a full
 * collection (both sides, {@link collectGarbage}), once `MEMORY_WARM_SHARDS` states are held and
 * again after `MEMORY_SHARDS`, and the slope between. Without the collection the figure was mostly
 * garbage not collected yet (0.51× to 1.46× for the same code); without the warm-up it counted the
 * heap's one-off growth (V8 enlarging its young generation: 17 MB of committed, empty heap, the same
 * at 20 states as at 40) as a cost of each of the first states.
 */
async function memoryPerState(
  child: ChildProcess,
  member: (room: string) => Promise<{ doc: Y.Doc; close(): Promise<void> | void }>,
  confirm: (room: string, keys: number) => Promise<void>,
): Promise<MemoryFigures> {
  const held = [];
  const keys = expectedKeys(1, STATE_BYTES);
  let before = 0;
  let warm: Collected | undefined;
  try {
    for (let shard = 0; shard < MEMORY_SHARDS; shard++) {
      if (shard === MEMORY_WARM_SHARDS) {
        warm = await collectGarbage(child);
        before = rssOf(child);
      }
      const room = `memory-${shard}`;
      const client = await member(room);
      writeShare(client.doc, 0, 1, STATE_BYTES);
      held.push(client);
      await confirm(room, keys);
    }
    const all = await collectGarbage(child);
    const after = rssOf(child);
    const states = MEMORY_SHARDS - MEMORY_WARM_SHARDS;
    const kept = all.heapUsed + all.arrayBuffers - (warm!.heapUsed + warm!.arrayBuffers);
    return { before, after, perState: (after - before) / states, keptPerState: kept / states };
  } finally {
    for (const client of held) await client.close();
  }
}

interface HistoryFigures {
  readonly variant: string;
  readonly joinBytes: number;
  readonly joinMs: number;
  readonly stateBytes: number;
}

/** Bullet 4: the same log of chat messages as a history ring and as a Y.Array in the state. */
async function historyAgainstLog(context: BenchContext, server: SignalingProcess): Promise<HistoryFigures[]> {
  const port = Number(new URL(server.url).port);
  const proxy = await startByteProxy(port);
  const viaProxy = `http://127.0.0.1:${proxy.port}`;
  const figures: HistoryFigures[] = [];
  const held: KitMember[] = [];
  const measure = async (variant: string, room: string, joined: (member: KitMember) => Promise<void>, history?: number): Promise<void> => {
    const times: number[] = [];
    const received: number[] = [];
    let size = 0;
    for (let sample = 0; sample < 10; sample++) {
      proxy.reset();
      let replayed = 0;
      let allReplayed: () => void = () => undefined;
      const replayDone = new Promise<void>((resolve) => (allReplayed = resolve));
      const joiner = await joinKit(viaProxy, room, {
        ...(history !== undefined ? { history } : {}),
        listen: (dispatch) =>
          void dispatch.on('chat', (_payload, metadata) => {
            if ((metadata as { replayed?: boolean }).replayed === true && ++replayed === history) allReplayed();
          }),
      });
      if (history !== undefined) await Promise.race([replayDone, settle(WAIT_MS).then(() => Promise.reject(new Error(`${replayed} of ${history} events replayed`)))]);
      await joined(joiner);
      times.push(performance.now() - joiner.connectCalledAt);
      received.push(proxy.counts.toClient);
      size = stateBytes(joiner.doc);
      await joiner.close();
    }
    figures.push({ variant, joinBytes: stats(received).median, joinMs: stats(times).median, stateBytes: size });
  };
  try {
    await measure('plain join (empty state, no history)', 'history-none', async () => undefined);

    const ringWriter = await joinKit(server.url, 'history-ring');
    held.push(ringWriter);
    await emitChat(ringWriter, LOG_LENGTH, LOG_MESSAGE_BYTES);
    await measure(`history: ${LOG_LENGTH} events`, 'history-ring', async () => undefined, LOG_LENGTH);

    const logWriter = await joinKit(server.url, 'history-log');
    held.push(logWriter);
    const log = logWriter.doc.getArray<unknown>('log');
    logWriter.doc.transact(() => {
      for (let i = 0; i < LOG_LENGTH; i++) log.push([{ n: i, text: `${i}:`.padEnd(LOG_MESSAGE_BYTES, 'x') }]);
    });
    await measure(`Y.Array log: ${LOG_LENGTH} messages`, 'history-log', (joiner) => whenLength(joiner.doc, LOG_LENGTH));

    // A chat that ran on: 2,000 messages, one transaction each (as people send them), the array
    // trimmed to the last LOG_LENGTH. Deleted items leave tombstones the state keeps.
    const ringInState = await joinKit(server.url, 'history-long');
    held.push(ringInState);
    const long = ringInState.doc.getArray<unknown>('log');
    for (let i = 0; i < LONG_LOG; i++) {
      ringInState.doc.transact(() => {
        long.push([{ n: i, text: `${i}:`.padEnd(LOG_MESSAGE_BYTES, 'x') }]);
        if (long.length > LOG_LENGTH) long.delete(0, long.length - LOG_LENGTH);
      });
    }
    await measure(`Y.Array log: last ${LOG_LENGTH} of ${LONG_LOG} (trimmed)`, 'history-long', (joiner) => whenFirst(joiner.doc, LONG_LOG - LOG_LENGTH));
  } finally {
    for (const member of held) await member.close();
    await proxy.close();
  }
  context.log(
    table(
      ['variant', 'bytes to the joiner (median)', 'join → log held, ms (median)', 'state bytes'],
      figures.map((f) => [f.variant, bytes(f.joinBytes), ms(f.joinMs), bytes(f.stateBytes)]),
    ),
  );
  return figures;
}

function whenLength(doc: Y.Doc, length: number): Promise<void> {
  return waitUntil(doc, () => doc.getArray('log').length >= length);
}
function whenFirst(doc: Y.Doc, first: number): Promise<void> {
  return waitUntil(doc, () => (doc.getArray<{ n: number }>('log').get(0)?.n ?? -1) >= first);
}
function waitUntil(doc: Y.Doc, done: () => boolean): Promise<void> {
  if (done()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('log not held in time')), WAIT_MS);
    const check = (): void => {
      if (!done()) return;
      clearTimeout(timer);
      doc.off('update', check);
      resolve();
    };
    doc.on('update', check);
  });
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const targets: TargetCheck[] = [];
  const single = await startSignalingProcess(context.rootDir, `${PROJECT}:${TOKEN}`, NODE_ARGS);
  const yjs = await startYjsServer();
  const redis = skipRedis === false ? await RedisProcess.start() : null;
  const nodes = redis ? await Promise.all(['s1', 's2'].map((id) => NodeProcess.start(redis.url, id, NODE_ARGS))) : [];
  const data: Record<string, unknown> = {};
  try {
    if (!redis) context.log(`two Redis nodes skipped: ${String(skipRedis)}`);
    const sides = [
      kitSide('kit, one node', [single.url]),
      ...(nodes.length === 2
        ? [
            kitSide(
              'kit, two Redis nodes',
              nodes.map((node) => node.url),
            ),
          ]
        : []),
      yjsSide(yjs),
    ];
    const samples = await lateJoins(
      context,
      sides,
      single.url,
      nodes.map((node) => node.url),
    );
    const baseline = stats(samples.get('@y/websocket-server')!);
    const rows = [...samples].map(([name, values]) => {
      const s = stats(values);
      return [name, ms(s.median), ms(s.p90), ms(s.max), name === '@y/websocket-server' ? '1.00×' : ratio(s.median / baseline.median)];
    });
    context.log(
      `\nlate joiner: connect() → the document holds the whole ${STATE_BYTES / 1000} KB state (${JOIN_SAMPLES} samples each, ${MEMBERS} members with the joiner); '${RESOLVED.slice(2)}': the kit's connect() promise\n`,
    );
    context.log(table(['server', 'p50 ms', 'p90 ms', 'max ms', 'p50 / Yjs server'], rows));
    for (const [name, values] of samples) {
      if (name === '@y/websocket-server' || name === PLAIN_JOIN || name === PLAIN_JOIN_REDIS || name.endsWith(RESOLVED)) continue;
      const median = stats(values).median;
      targets.push({ name: `late joiner holds a 100 KB state ≤ 300 ms after connect(), p50 (${name})`, pass: median <= 300, detail: `${ms(median)} ms` });
      targets.push({
        name: `late join ≤ 1× the Yjs server, p50 (${name})`,
        pass: median <= baseline.median,
        detail: `${ms(median)} against ${ms(baseline.median)} ms (${ratio(median / baseline.median)})`,
      });
    }
    data['lateJoinMs'] = Object.fromEntries(samples);

    context.log(
      `\nserver memory per 100 KB state (${MEMORY_SHARDS} shards, one member left in each; RSS after ${MEMORY_WARM_SHARDS} and after ${MEMORY_SHARDS} states, each after a full GC, the slope between; 'kept': the JS heap in use plus array buffers, the same slope), fresh servers\n`,
    );
    const kitServer = await startSignalingProcess(context.rootDir, `${PROJECT}:${TOKEN}`, NODE_ARGS, gcNodeArgs(context.rootDir));
    const yjsServer = await startYjsServer(gcNodeArgs(context.rootDir));
    try {
      const kit = await memoryPerState(
        kitServer.child,
        (room) => joinKit(kitServer.url, room),
        async (room, keys) => {
          const probe = await joinKit(kitServer.url, room);
          await whenKeys(probe.doc, keys, WAIT_MS);
          await probe.close();
        },
      );
      const members = new Map<string, YjsClient>();
      const yjsFigures = await memoryPerState(
        yjsServer.child,
        async (room) => {
          const client = await connectYjsClient(yjsServer.url, room, WAIT_MS);
          members.set(room, client);
          return { doc: client.doc, close: () => client.close() };
        },
        (room, keys) => yjsFlushed(members.get(room)!, yjsServer.url, room, keys, WAIT_MS),
      );
      const mb = (value: number): string => (value / 2 ** 20).toFixed(1);
      context.log(
        table(
          ['server', 'RSS before MB', 'RSS after MB', 'RSS per state KB', 'ratio', 'kept per state KB', 'ratio (kept)'],
          [
            [
              'kit, one node',
              mb(kit.before),
              mb(kit.after),
              (kit.perState / 1024).toFixed(1),
              ratio(kit.perState / yjsFigures.perState),
              (kit.keptPerState / 1024).toFixed(1),
              ratio(kit.keptPerState / yjsFigures.keptPerState),
            ],
            [
              '@y/websocket-server',
              mb(yjsFigures.before),
              mb(yjsFigures.after),
              (yjsFigures.perState / 1024).toFixed(1),
              '1.00×',
              (yjsFigures.keptPerState / 1024).toFixed(1),
              '1.00×',
            ],
          ],
        ),
      );
      targets.push({
        name: 'server memory per shard state ≤ 1× the Yjs server',
        pass: kit.perState <= yjsFigures.perState,
        detail: `${(kit.perState / 1024).toFixed(1)} against ${(yjsFigures.perState / 1024).toFixed(1)} KB RSS (${ratio(kit.perState / yjsFigures.perState)})`,
      });
      data['memory'] = { kit, yjs: yjsFigures };
    } finally {
      await kitServer.stop();
      await yjsServer.stop();
    }

    context.log(`\nhistory (bullet 4): a log of ${LOG_LENGTH} chat messages of ~${LOG_MESSAGE_BYTES} B, through a byte-counting proxy, 10 joins each\n`);
    data['history'] = await historyAgainstLog(context, single);
  } finally {
    await Promise.all(nodes.map((node) => node.stop()));
    await redis?.stop();
    await yjs.stop();
    await single.stop();
  }
  return { targets, data };
}
