/**
 * Event latency between two browser members (one-way, one page, sequential),
 * median and p99, in the same page and run as its baselines:
 * - ours over the mesh against a raw RTCDataChannel pair (target ≤ 1.3×),
 * - ours over the relay against a raw WebSocket forwarder (target ≤ 1.3×),
 * - ours over the relay against Socket.IO room broadcast (target: faster).
 * A diagnostic scenario, raw-via-ours, sends ours' frames from plain browser
 * WebSockets through our server: against raw-ws-forward it is the server's
 * share of the relay's time, and ours-relay against it the client library's.
 * Scenarios run in blocks, shuffled anew each round (bench/pages/order.ts);
 * paired ratios compare blocks of the same round.
 * The page is bench/dispatch-latency.html; the servers run in this process.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server as SocketIoServer } from 'socket.io';
import { WebSocketServer, type WebSocket } from 'ws';
import { createSignalingServer } from '../signaling/server.js';
import { ms, ratio, stats, table, type BenchContext, type BenchOutcome, type TargetCheck } from './support/bench.js';

export const description = 'Dispatch event latency between two browser members: mesh vs raw RTCDataChannel, relay vs raw WebSocket, vs Socket.IO.';

const MAX_RATIO = 1.3;
const MIN_SAMPLES = 10_000;

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const signaling = createSignalingServer({ port: 0, host: '127.0.0.1', projects: { bench: 'bench-token' }, limits: { maxEventsPerSecond: 100_000 } });
  await signaling.ready;
  // The raw baseline of the relay: a server that forwards each frame to the other sockets, nothing else.
  const rawHttp = createServer();
  const raw = new WebSocketServer({ server: rawHttp, perMessageDeflate: false });
  const sockets = new Set<WebSocket>();
  raw.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('message', (data, isBinary) => {
      for (const other of sockets) if (other !== socket) other.send(data, { binary: isBinary });
    });
  });
  await new Promise<void>((resolve) => rawHttp.listen(0, '127.0.0.1', resolve));
  const sioHttp = createServer();
  const sio = new SocketIoServer(sioHttp, { cors: { origin: '*' }, perMessageDeflate: false });
  sio.on('connection', (socket) => {
    socket.on('join', (room: string, done: () => void) => {
      void socket.join(room);
      done();
    });
    socket.on('m', (data: unknown) => socket.to('room').emit('m', data));
  });
  await new Promise<void>((resolve) => sioHttp.listen(0, '127.0.0.1', resolve));

  const server = await context.server();
  const browser = await context.browser();
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  try {
    const url = new URL('/bench/dispatch-latency.html', server.hostOrigin);
    url.searchParams.set('signaling', signaling.url);
    url.searchParams.set('rawWs', `ws://127.0.0.1:${(rawHttp.address() as AddressInfo).port}`);
    url.searchParams.set('sio', `http://127.0.0.1:${(sioHttp.address() as AddressInfo).port}`);
    // At least 10,000 per scenario, so a p99 rests on 100 samples: over 3,000 (30 samples), the p99
    // ratios moved between 0.91x and 1.70x from one run to the next on a quiet machine.
    url.searchParams.set('samples', String(Math.max(context.options.samples, MIN_SAMPLES)));
    url.searchParams.set('warmup', String(Math.min(context.options.warmup, 500)));
    url.searchParams.set('rounds', String(context.options.rounds));
    await page.goto(url.toString());
    page.setDefaultTimeout(10 * 60_000);
    await page.waitForFunction(() => window.__dispatchResults !== undefined);
    const results = await page.evaluate(() => window.__dispatchResults!);
    if (results.error) throw new Error(`bench page: ${results.error}`);
    const by = new Map(results.scenarios.map((scenario) => [scenario.id, stats(scenario.samples)]));
    const get = (id: string) => {
      const found = by.get(id);
      if (!found || found.count === 0) throw new Error(`no samples for ${id}`);
      return found;
    };
    context.log(`Chromium ${browser.version()}; one-way latency in ms, sequential, ${results.scenarios[0]?.samples.length ?? 0} samples per scenario.\n`);
    context.log(
      table(
        ['scenario', 'n', 'median', 'p90', 'p99', 'mean', 'min', 'max'],
        [...by].map(([id, s]) => [id, String(s.count), ms(s.median), ms(s.p90), ms(s.p99), ms(s.mean), ms(s.min), ms(s.max)]),
      ),
    );
    // Paired: within each round the blocks ran back to back (in a shuffled order), so the ratio of
    // two scenarios' block medians in one round is free of drift between rounds.
    const rounds = context.options.rounds;
    const samplesOf = new Map(results.scenarios.map((scenario) => [scenario.id, scenario.samples]));
    const paired = (a: string, b: string): { median: number; aFaster: number } => {
      const aSamples = samplesOf.get(a) ?? [];
      const bSamples = samplesOf.get(b) ?? [];
      const block = Math.floor(aSamples.length / rounds);
      const ratios: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const at = round * block;
        ratios.push(stats(aSamples.slice(at, at + block)).median / stats(bSamples.slice(at, at + block)).median);
      }
      return { median: stats(ratios).median, aFaster: ratios.filter((value) => value < 1).length / ratios.length };
    };
    const pairs = [
      ['ours-mesh', 'raw-datachannel'],
      ['ours-relay', 'raw-ws-forward'],
      ['ours-relay', 'socket.io-room'],
      ['ours-mesh', 'socket.io-room'],
      // Diagnostics: the relay split into the server's share and the client library's.
      ['raw-via-ours', 'raw-ws-forward'],
      ['ours-relay', 'raw-via-ours'],
    ] as const;
    const pairedOf = new Map(pairs.map(([a, b]) => [`${a}/${b}`, paired(a, b)]));
    const pairedText = (a: string, b: string): string => {
      const pair = pairedOf.get(`${a}/${b}`)!;
      return `paired ${ratio(pair.median)}, faster in ${Math.round(pair.aFaster * 100)}% of rounds`;
    };
    context.log(`\nPaired: the median over ${rounds} rounds of the ratio of that round's block medians (blocks shuffled per round, bench/pages/order.ts).\n`);
    context.log(
      table(
        ['ratio', 'of medians', 'paired', 'rounds where faster'],
        pairs.map(([a, b]) => [
          `${a} / ${b}`,
          ratio(get(a).median / get(b).median),
          ratio(pairedOf.get(`${a}/${b}`)!.median),
          `${Math.round(pairedOf.get(`${a}/${b}`)!.aFaster * 100)}%`,
        ]),
      ),
    );
    const mesh = get('ours-mesh');
    const dc = get('raw-datachannel');
    const relay = get('ours-relay');
    const ws = get('raw-ws-forward');
    const io = get('socket.io-room');
    const targets: TargetCheck[] = [
      {
        name: `mesh median ≤ ${MAX_RATIO}× raw RTCDataChannel`,
        pass: mesh.median <= MAX_RATIO * dc.median,
        detail: `${ms(mesh.median)} vs ${ms(dc.median)} ms = ${ratio(mesh.median / dc.median)}`,
      },
      { name: `mesh p99 ≤ ${MAX_RATIO}× raw RTCDataChannel`, pass: mesh.p99 <= MAX_RATIO * dc.p99, detail: `${ms(mesh.p99)} vs ${ms(dc.p99)} ms = ${ratio(mesh.p99 / dc.p99)}` },
      {
        name: `relay median ≤ ${MAX_RATIO}× raw ws forward`,
        pass: relay.median <= MAX_RATIO * ws.median,
        detail: `${ms(relay.median)} vs ${ms(ws.median)} ms = ${ratio(relay.median / ws.median)}`,
      },
      { name: `relay p99 ≤ ${MAX_RATIO}× raw ws forward`, pass: relay.p99 <= MAX_RATIO * ws.p99, detail: `${ms(relay.p99)} vs ${ms(ws.p99)} ms = ${ratio(relay.p99 / ws.p99)}` },
      {
        name: 'relay faster than Socket.IO room broadcast (median)',
        pass: relay.median < io.median,
        detail: `${ms(relay.median)} vs ${ms(io.median)} ms; ${pairedText('ours-relay', 'socket.io-room')}`,
      },
      {
        name: 'mesh faster than Socket.IO room broadcast (median)',
        pass: mesh.median < io.median,
        detail: `${ms(mesh.median)} vs ${ms(io.median)} ms; ${pairedText('ours-mesh', 'socket.io-room')}`,
      },
    ];
    // Raw samples in measuring order (rounds of blocks), for --json: where a tail comes from shows in them.
    return { targets, data: { rounds, scenarios: results.scenarios } };
  } finally {
    for (const problem of problems) context.log(`[page error] ${problem}`);
    await page.close();
    await signaling.close();
    raw.close();
    for (const socket of sockets) socket.terminate();
    rawHttp.close();
    await new Promise<void>((resolve) => void sio.close(() => resolve()));
  }
}
