// Helpers for the scale-out tests: a real redis-server (Debian's package) on a
// free loopback port, and signaling nodes as child processes
// (`node --import tsx signaling/bin.ts --redis …`), killable with SIGKILL and
// pausable with SIGSTOP (the fault suite, cluster-faults.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { PROJECT, TOKEN } from './signaling-support.js';

export const REDIS_SERVER = process.env['REDIS_SERVER'] ?? '/usr/bin/redis-server';
/** Why the Redis tests are skipped, or false: CI installs redis-server (.ci/run), so only a bare machine skips. */
export const skipRedis: string | false = existsSync(REDIS_SERVER) ? false : `${REDIS_SERVER} is missing (apt-get install redis-server; .ci/run does it)`;
/** The server key every node shares (resume tokens, user tokens, sealed secrets). */
export const SHARED_KEY = Buffer.alloc(32, 42).toString('base64');

const root = fileURLToPath(new URL('../../', import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

// A bound for a process that never starts, not a measure of speed: under a load of 30 on 2 cores a node
// (tsx compiling the server on the way up) took more than 15 s to print its address.
function waitForLine(child: ChildProcess, pattern: RegExp, what: string, timeoutMs = 90_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what}: no "${pattern}" within ${timeoutMs} ms; output: ${seen.slice(-2000)}`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      seen += String(chunk);
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code ?? signal}) before "${pattern}"; output: ${seen.slice(-2000)}`));
    });
  });
}

/**
 * SIGSTOP, then SIGCONT: the process exists and keeps its sockets open but
 * answers nothing meanwhile, as a node stalled by GC or a hung Redis would.
 * Resolves once it runs again; a process that exited meanwhile is left alone.
 */
export async function pauseFor(child: ChildProcess | null, ms: number): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) throw new Error('pauseFor: the process is not running');
  child.kill('SIGSTOP');
  try {
    await delay(ms);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGCONT');
  }
}

/** Continues a process that a failed test may have left stopped: a stopped process ignores SIGTERM until continued. */
function continueIfRunning(child: ChildProcess | null): void {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGCONT');
}

/** A redis-server without persistence in a throwaway directory; `restart()` brings it back empty on the same port. */
export class RedisProcess {
  child: ChildProcess | null = null;
  readonly dir = mkdtempSync(join(tmpdir(), 'platform-redis-'));
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<RedisProcess> {
    const redis = new RedisProcess(await freePort());
    await redis.#spawn();
    return redis;
  }

  async #spawn(): Promise<void> {
    const child = spawn(REDIS_SERVER, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir, '--protected-mode', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    await waitForLine(child, /Ready to accept connections/, 'redis-server');
  }

  /** Kills Redis (SIGKILL: no goodbye to its clients). */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.#spawn();
  }

  /** Starts Redis again, empty, on the same port after {@link kill}. */
  async startAgain(): Promise<void> {
    if (this.child) throw new Error('redis-server is still running');
    await this.#spawn();
  }

  /** SIGSTOP for `ms`, then SIGCONT (a hung Redis: connections stay open, nothing answers). */
  pauseFor(ms: number): Promise<void> {
    return pauseFor(this.child, ms);
  }

  async stop(): Promise<void> {
    continueIfRunning(this.child);
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Per-address limits far above what a bench sends from its one address (127.0.0.1), for benches
 * that measure the server, not its door: events, joins, new shards and unjoined sockets.
 */
export const BENCH_LIMIT_ARGS: readonly string[] = [
  '--max-events-per-second',
  '100000',
  '--max-joins-per-address-per-minute',
  '1000000',
  '--max-shards-per-address-per-minute',
  '1000000',
  '--max-unjoined-sockets-per-address',
  '100000',
];

/** One signaling node in its own process. */
export class NodeProcess {
  constructor(
    readonly id: string,
    readonly child: ChildProcess,
    readonly url: string,
    readonly dataDir: string,
    readonly output: string[],
  ) {}

  /** Starts a node; `startTimeoutMs` bounds the wait for its listening line (longer on a loaded machine: tsx compiles first). */
  static async start(redisUrl: string, id: string, extra: readonly string[] = [], startTimeoutMs = 90_000): Promise<NodeProcess> {
    const dataDir = mkdtempSync(join(tmpdir(), `platform-node-${id}-`));
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'signaling/bin.ts',
        '--redis',
        redisUrl,
        '--node-id',
        id,
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--project',
        `${PROJECT}:${TOKEN}`,
        '--secret-key',
        SHARED_KEY,
        '--data-dir',
        dataDir,
        '--max-events-per-second',
        '1000',
        ...extra,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output: string[] = [];
    child.stderr?.on('data', (chunk: Buffer) => output.push(String(chunk)));
    // A node that never said it listens is stopped here: no caller holds it to stop it.
    const match = await waitForLine(child, /platform-kit signaling: (http:\/\/\S+)/, `node ${id}`, startTimeoutMs).catch((error: unknown) => {
      child.kill('SIGKILL');
      throw error;
    });
    return new NodeProcess(id, child, match[1]!, dataDir, output);
  }

  /** SIGSTOP for `ms`, then SIGCONT (a node stalled past its lease wakes believing it still holds its members). */
  pauseFor(ms: number): Promise<void> {
    return pauseFor(this.child, ms);
  }

  /** kill -9. */
  async kill9(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    continueIfRunning(this.child);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
