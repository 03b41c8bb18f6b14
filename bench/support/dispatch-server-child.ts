// A server under measurement, alone in its process: `ours` (the signaling
// server) or `peer` (PeerServer). It reports its port over IPC and answers
// `measure` with its memory after a full GC and its CPU time so far.
// Run with --expose-gc.
import { createSignalingServer } from '../../signaling/server.js';

const kind = process.argv[2];
const gc = (globalThis as { gc?: () => void }).gc;

async function start(): Promise<number> {
  if (kind === 'ours') {
    const server = createSignalingServer({
      port: 0,
      host: '127.0.0.1',
      projects: { bench: 'bench-token' },
      // Every simulated client comes from 127.0.0.1. The join limit per address stays on, so each
      // join pays for its check, with a burst above the bench's 10,000 joins. (Spreading the
      // clients over 127.0.0.x instead makes the bench's own bind() calls crawl once tens of
      // thousands of its earlier sockets sit in TIME_WAIT: one turn fell to 369 joins/s.)
      limits: { maxEventsPerSecond: 100_000, maxMessagesPerSecond: 100_000, maxJoinsPerAddressPerMinute: 1_000_000, maxShardsPerAddressPerMinute: 1_000_000 },
    });
    await server.ready;
    return Number(new URL(server.url).port);
  }
  const { PeerServer } = await import('peer');
  return new Promise((resolve) => {
    PeerServer({ port: 0, host: '127.0.0.1', path: '/', concurrent_limit: 1_000_000 }, (server) => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

process.on('message', (message: unknown) => {
  if (message !== 'measure') return;
  for (let i = 0; i < 3; i++) gc?.();
  const memory = process.memoryUsage();
  process.send?.({ heapUsed: memory.heapUsed, rss: memory.rss, external: memory.external, cpu: process.cpuUsage() });
});
process.on('disconnect', () => process.exit(0));
process.send?.({ port: await start() });
