// The cross-node browser suite (test/browser/dispatch-cross-node.test.ts): a
// real redis-server and three signaling nodes (`node --import tsx
// signaling/bin.ts --redis …`, each its own process on a loopback port),
// started only when that suite asks (`redis-cluster-start`), so no other
// suite waits for them, and stopped when it is done (`redis-cluster-stop`)
// or, at the latest, when the runner stops. Without redis-server the start
// answers `{ skip: reason }` and the suite skips. The processes are the
// Node suites' own (test/node/redis-support.ts), loaded through tsx.
import { rmSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';

const PROJECT = 'demo';
const TOKEN = 'demo-project-token'; // what redis-support's nodes serve (signaling-support.ts)

// { redis: RedisProcess, nodes: NodeProcess[] } once started.
let cluster = null;
let starting = null;

async function start() {
  const support = await tsImport('../node/redis-support.ts', import.meta.url);
  if (support.skipRedis) return { skip: support.skipRedis };
  if (!cluster) {
    const redis = await support.RedisProcess.start();
    cluster = { redis, nodes: [] };
    try {
      // One at a time: three tsx start-ups at once on a small shared machine only take longer together.
      for (const id of ['w1', 'w2', 'w3']) cluster.nodes.push(await support.NodeProcess.start(redis.url, id, ['--lease-ms', '5000']));
    } catch (error) {
      await stop(); // no half cluster left running
      throw error;
    }
  }
  return { urls: cluster.nodes.map((node) => node.url) };
}

async function stop() {
  const running = cluster;
  cluster = null;
  starting = null;
  if (!running) return;
  await Promise.all(running.nodes.map((node) => node.stop()));
  await running.redis.stop();
}

/** What each node answers itself: `GET /info` (project credentials) and its event counter. */
async function nodesView() {
  if (!cluster) throw new Error('redis-cluster-start first');
  return Promise.all(
    cluster.nodes.map(async (node) => {
      const info = await fetch(`${node.url}/info`, { headers: { 'x-platform-project-id': PROJECT, authorization: `Bearer ${TOKEN}` } });
      const metrics = await (await fetch(`${node.url}/metrics`)).text();
      const eventsIn = Number(/^platform_kit_events_in (\d+)$/m.exec(metrics)?.[1]);
      return { node: node.id, info: await info.json(), eventsIn };
    }),
  );
}

const commands = {
  'redis-cluster-start': () =>
    (starting ??= start().catch((error) => {
      starting = null;
      throw error;
    })),
  'redis-cluster-nodes': nodesView,
  'redis-cluster-stop': async () => {
    await stop();
    return { ok: true };
  },
};

// The runner may exit before an async serverStop has finished: never leave a process or a directory behind.
process.once('exit', () => {
  const running = cluster;
  if (!running) return;
  for (const node of running.nodes) {
    node.child.kill('SIGKILL');
    rmSync(node.dataDir, { recursive: true, force: true });
  }
  running.redis.child?.kill('SIGKILL');
  rmSync(running.redis.dir, { recursive: true, force: true });
});

export default [
  {
    name: 'platform-kit-redis-cluster',
    async serverStop() {
      await stop();
    },
    async executeCommand({ command, payload }) {
      const run = commands[command];
      if (!run) return undefined;
      return run(payload ?? {});
    },
  },
];
