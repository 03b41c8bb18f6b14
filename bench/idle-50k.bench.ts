/**
 * Idle clients on one node (issue 18): 50,000 clients joined into shards of
 * 10 on one signaling server, then the server's RSS. Target: ≤ 1 GB.
 *
 * - The server: createSignalingServer alone in a child process
 *   (dispatch-server-child.ts `ours open`), with the per-address limits
 *   lifted, as test/node/redis-scale.test.ts does for its 127.0.0.1 clients.
 * - The clients: several child processes (idle-clients-child.ts), each
 *   joining its share with the browser client's handshake join, 50 in flight
 *   each, on loopback. Above 25,000 clients each process binds its sockets to
 *   its own source address (127.0.0.2, .3…): one address has about 28,000
 *   ephemeral ports towards one server port.
 * - Each process asks for `ulimit -n 200000` in the shell that starts it; a
 *   machine that refuses gives its hard limit. The server needs a file
 *   descriptor per client: when its limit is below the target, the harness
 *   measures as many clients as the limit allows, says so, and reports what
 *   the measured slope gives at 50,000 (an estimate, never a PASS).
 * - Clients join in four stages; after each, the server's memory after three
 *   full GCs (RSS, heap+external) and its peak RSS (VmHWM) are read, so the
 *   cost per client is a slope over the stages, not one point.
 * - Bounded: the run fails after 3 minutes, and every process it started is
 *   stopped by its pid.
 *
 *   npm run bench -- idle-50k
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bytes, table, type BenchContext, type BenchOutcome } from './support/bench.js';
import { measure, startServer, type Measure } from './support/dispatch-servers.js';

export const description = 'Idle clients on one signaling node: 50,000 clients in shards of 10 from several client processes on loopback, the server RSS (≤ 1 GB).';
export const onlyWhenNamed = true;

const TARGET_CLIENTS = 50_000;
const RSS_LIMIT_BYTES = 1024 ** 3;
const CLIENT_PROCESSES = 4;
const IN_FLIGHT_PER_PROCESS = 50;
const STAGES = 4;
const DEADLINE_MS = 180_000;
/** The server's own descriptors (listening socket, data dir, IPC, stdio) besides the clients'. */
const SERVER_FD_MARGIN = 200;
/** Above this many clients, each client process uses its own 127.0.0.x source address. */
const CLIENTS_PER_SOURCE_ADDRESS = 25_000;

const CLIENT_CHILD = fileURLToPath(new URL('./support/idle-clients-child.ts', import.meta.url));

/** The kernel's view of a process's memory: resident now and at its peak. */
function procStatus(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

function startClients(port: number, first: number, localAddress: string | undefined): Promise<ChildProcess> {
  const args = [
    process.execPath,
    '--import',
    'tsx',
    CLIENT_CHILD,
    String(port),
    String(first),
    String(IN_FLIGHT_PER_PROCESS),
    ...(localAddress === undefined ? [] : [localAddress]),
  ];
  const script = `ulimit -n 200000 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec ${args.map((arg) => `'${arg}'`).join(' ')}`;
  const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`client process exited with ${code}`)));
  });
}

/** Asks a client process to join `count` more clients; resolves with its total. */
function join(child: ChildProcess, count: number): Promise<number> {
  return new Promise((resolve, reject) => {
    child.on('message', function joined(message) {
      const { bench, total, message: text } = message as { bench?: string; total?: number; message?: string };
      if (bench !== 'joined' && bench !== 'error') return;
      child.off('message', joined);
      if (bench === 'error') reject(new Error(`client process: ${text}`));
      else resolve(total ?? 0);
    });
    child.send({ join: count });
  });
}

interface Stage {
  clients: number;
  joinMs: number;
  measured: Measure;
  /** VmRSS (before the GC of `measured`) and VmHWM of the server. */
  peakRss: number;
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const children: ChildProcess[] = [];
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`idle-50k: not done within ${DEADLINE_MS / 1000} s`)), DEADLINE_MS);
  });
  try {
    return await Promise.race([measureIdle(context, children), deadline]);
  } finally {
    clearTimeout(timer);
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  }
}

async function measureIdle(context: BenchContext, children: ChildProcess[]): Promise<BenchOutcome> {
  const server = await startServer('ours', { args: ['open'], openFiles: 200_000 });
  children.push(server.child);
  const serverPid = server.child.pid!;
  const clients = Math.min(TARGET_CLIENTS, server.maxOpenFiles - SERVER_FD_MARGIN);
  // Clients divisible by the processes and the stages, in whole shards of 10.
  const perProcessStage = Math.floor(clients / (CLIENT_PROCESSES * STAGES * 10)) * 10;
  const total = perProcessStage * CLIENT_PROCESSES * STAGES;
  context.log(
    `server: open files allowed ${bytes(server.maxOpenFiles)} (asked for 200,000); clients: ${bytes(total)}${total < TARGET_CLIENTS ? ` (the target is ${bytes(TARGET_CLIENTS)}: this machine's file limit allows no more in one process)` : ''}`,
  );
  const spreadSources = total > CLIENTS_PER_SOURCE_ADDRESS;
  const perProcess = total / CLIENT_PROCESSES;
  for (let k = 0; k < CLIENT_PROCESSES; k++) {
    children.push(await startClients(server.port, k * perProcess, spreadSources ? `127.0.0.${k + 2}` : undefined));
  }
  context.log(
    `${CLIENT_PROCESSES} client processes, ${IN_FLIGHT_PER_PROCESS} joins in flight each, ${spreadSources ? 'each from its own 127.0.0.x source address' : 'all from 127.0.0.1'}; ${STAGES} stages of ${bytes(perProcessStage * CLIENT_PROCESSES)} clients`,
  );
  const idle = await measure(server.child);
  const stages: Stage[] = [];
  let joined = 0;
  for (let stage = 0; stage < STAGES; stage++) {
    const started = performance.now();
    await Promise.all(children.slice(1).map((child) => join(child, perProcessStage)));
    const joinMs = performance.now() - started;
    joined += perProcessStage * CLIENT_PROCESSES;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const peak = procStatus(serverPid);
    const measured = await measure(server.child);
    stages.push({ clients: joined, joinMs, measured, peakRss: peak.hwm });
    context.log(
      `stage ${stage + 1}: ${bytes(joined)} clients (${bytes(measured.members)} members in ${bytes(measured.rooms)} shards), joined at ${((perProcessStage * CLIENT_PROCESSES) / (joinMs / 1000)).toFixed(0)}/s; RSS ${mb(measured.rss)} after GC (${mb(peak.rss)} before), peak ${mb(peak.hwm)}, heap+external ${mb(measured.heapUsed + measured.external)}`,
    );
  }
  // Idle a while longer (past a heartbeat sweep): every client must still be there.
  await new Promise((resolve) => setTimeout(resolve, 12_000));
  const last = await measure(server.child);
  const peakRss = procStatus(serverPid).hwm;
  const stillThere = last.members === total;
  context.log(`after 12 s more of idle: ${bytes(last.members)} members, RSS ${mb(last.rss)} after GC, peak ${mb(peakRss)}`);

  // Cost per client: least squares over (idle, stages).
  const points = [{ x: 0, y: idle.rss }, ...stages.map((stage) => ({ x: stage.clients, y: stage.measured.rss }))];
  const slope = leastSquaresSlope(points);
  const heapSlope = leastSquaresSlope([
    { x: 0, y: idle.heapUsed + idle.external },
    ...stages.map((stage) => ({ x: stage.clients, y: stage.measured.heapUsed + stage.measured.external })),
  ]);
  const at50k = idle.rss + slope * TARGET_CLIENTS;
  context.log('');
  context.log(
    table(
      ['clients', 'RSS after GC', 'peak RSS', 'heap+external', 'RSS per client over idle'],
      [
        ['0 (idle)', mb(idle.rss), '', mb(idle.heapUsed + idle.external), ''],
        ...stages.map((stage) => [
          bytes(stage.clients),
          mb(stage.measured.rss),
          mb(stage.peakRss),
          mb(stage.measured.heapUsed + stage.measured.external),
          `${((stage.measured.rss - idle.rss) / stage.clients / 1024).toFixed(1)} KB`,
        ]),
      ],
    ),
  );
  context.log(
    `\nslope: ${(slope / 1024).toFixed(2)} KB RSS and ${(heapSlope / 1024).toFixed(2)} KB heap+external per client; idle server ${mb(idle.rss)}; at ${bytes(TARGET_CLIENTS)} that gives ${mb(at50k)} (estimate)`,
  );
  const measuredAll = total >= TARGET_CLIENTS;
  const final = stages.at(-1)!;
  return {
    targets: [
      {
        name: `${bytes(TARGET_CLIENTS)} idle clients on one node within 1 GB RSS`,
        pass: measuredAll && stillThere && final.measured.rss <= RSS_LIMIT_BYTES && peakRss <= RSS_LIMIT_BYTES,
        detail: measuredAll
          ? `${mb(final.measured.rss)} after GC, peak ${mb(peakRss)}${stillThere ? '' : `; only ${bytes(last.members)} still joined`}`
          : `not measured at ${bytes(TARGET_CLIENTS)}: the file limit (${bytes(server.maxOpenFiles)}) allowed ${bytes(total)} clients, RSS ${mb(final.measured.rss)} after GC, peak ${mb(peakRss)}${stillThere ? '' : `, ${bytes(last.members)} still joined`}; the slope gives ${mb(at50k)} at ${bytes(TARGET_CLIENTS)}`,
      },
    ],
    data: { target: TARGET_CLIENTS, clients: total, maxOpenFiles: server.maxOpenFiles, idle, stages, last, peakRss, slopeBytesPerClient: slope, estimateAtTarget: at50k },
  };
}

function leastSquaresSlope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((sum, p) => sum + p.x, 0) / n;
  const my = points.reduce((sum, p) => sum + p.y, 0) / n;
  const sxy = points.reduce((sum, p) => sum + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((sum, p) => sum + (p.x - mx) ** 2, 0);
  return sxy / sxx;
}

function mb(value: number): string {
  return `${(value / 1024 ** 2).toFixed(0)} MB`;
}
