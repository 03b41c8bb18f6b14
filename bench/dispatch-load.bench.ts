/**
 * A 100-member shard on the relay, each member sending 10 events/s to every
 * other member (99,000 deliveries/s): server CPU (its own process) and
 * one-way latency percentiles, measured at 10 observer members (the others
 * count frames without parsing, to keep the client process from being the
 * bottleneck). Clients are Node WebSocket clients speaking the wire directly.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { bytes, ms, stats, table, type BenchContext, type BenchOutcome } from './support/bench.js';

export const description = 'A 100-member shard on the relay, 10 events/s per member: server CPU and p99 latency.';

const MEMBERS = 100;
const RATE = 10;
const WARMUP_MS = 2_000;
const MEASURE_MS = 10_000;
const OBSERVERS = 10;

interface Measure {
  cpu: { user: number; system: number };
  rss: number;
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./support/dispatch-server-child.ts', import.meta.url)), ['ours'], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve) => child.once('message', (message) => resolve((message as { port: number }).port)));
  const measure = () =>
    new Promise<Measure>((resolve) => {
      child.once('message', (message) => resolve(message as Measure));
      child.send('measure');
    });
  const sockets: WebSocket[] = [];
  const timers: ReturnType<typeof setInterval>[] = [];
  try {
    for (let i = 0; i < MEMBERS; i++) {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/dispatch`, { perMessageDeflate: false });
      await new Promise<void>((resolve) => socket.once('open', () => resolve()));
      const joined = new Promise<void>((resolve) => socket.once('message', () => resolve()));
      socket.send(
        JSON.stringify({ type: 'join', v: 1, id: 1, projectId: 'bench', kind: 'backend', projectToken: 'bench-token', shardName: 'load', maxConnectionsPerShard: MEMBERS }),
      );
      await joined;
      sockets.push(socket);
    }
    let measuring = false;
    const latencies: number[] = [];
    let deliveries = 0;
    sockets.forEach((socket, index) => {
      socket.on('message', (data: Buffer) => {
        if (!measuring) return;
        deliveries++;
        if (index < OBSERVERS && data[9] === 0x65 /* "e" of "event" */) {
          const frame = JSON.parse(String(data)) as { payload?: { t?: number } };
          if (typeof frame.payload?.t === 'number') latencies.push(performance.timeOrigin + performance.now() - frame.payload.t);
        }
      });
    });
    const seqs = sockets.map(() => 0);
    sockets.forEach((socket, index) => {
      // Spread the senders over the interval, as real members would be.
      setTimeout(
        () => {
          timers.push(
            setInterval(() => {
              const t = performance.timeOrigin + performance.now();
              socket.send(`{"type":"emit","seq":${++seqs[index]!},"name":"move","payload":{"t":${t},"x":${index},"y":${seqs[index]}},"ts":${t}}`);
            }, 1000 / RATE),
          );
        },
        (index * (1000 / RATE)) / MEMBERS,
      );
    });
    await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
    const before = await measure();
    const started = performance.now();
    measuring = true;
    await new Promise((resolve) => setTimeout(resolve, MEASURE_MS));
    measuring = false;
    const elapsed = performance.now() - started;
    const after = await measure();
    const cpuMs = (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000;
    const s = stats(latencies);
    const expected = MEMBERS * (MEMBERS - 1) * RATE * (elapsed / 1000);
    context.log(`${MEMBERS} members, ${RATE} events/s each, ${(elapsed / 1000).toFixed(1)} s measured after ${WARMUP_MS / 1000} s warm-up.\n`);
    context.log(
      table(
        ['server CPU', 'deliveries/s', 'delivered', 'latency median', 'p90', 'p99', 'max', 'server RSS'],
        [
          [
            `${((cpuMs / elapsed) * 100).toFixed(0)}% of a core`,
            bytes(Math.round(deliveries / (elapsed / 1000))),
            `${((deliveries / expected) * 100).toFixed(1)}%`,
            `${ms(s.median)} ms`,
            `${ms(s.p90)} ms`,
            `${ms(s.p99)} ms`,
            `${ms(s.max)} ms`,
            `${(after.rss / 1024 / 1024).toFixed(0)} MB`,
          ],
        ],
      ),
    );
    return {
      targets: [
        { name: 'every event delivered to the 99 others', pass: deliveries >= expected * 0.97, detail: `${deliveries} of ~${Math.round(expected)}` },
        { name: 'server below one core', pass: cpuMs / elapsed < 1, detail: `${((cpuMs / elapsed) * 100).toFixed(0)}%` },
      ],
    };
  } finally {
    for (const timer of timers) clearInterval(timer);
    for (const socket of sockets) socket.terminate();
    child.kill();
  }
}
