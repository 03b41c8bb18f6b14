// Helpers for the hostile-input tests (signaling-hostile.test.ts, signaling-fuzz.test.ts):
// the signaling server as a CHILD PROCESS (signaling/bin.ts), so a frame that kills it fails
// a test instead of killing the test runner; its RSS read from /proc; liveness checked from
// outside (GET /health, a fresh honest pair that joins and exchanges an event); raw sockets
// that can stop reading (`_socket.pause()`), flood with bounded count and time, and record
// their close code; deep and hostile JSON builders; a seeded PRNG.
//
// See TESTING.md, "Hostile input": JSON.parse takes any depth, JSON.stringify throws near a
// few thousand levels; a socket that never reads grows the server's buffer until something
// closes it; every loop is bounded in count and time, every process is stopped by pid.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket, type ClientOptions, type RawData } from 'ws';
import { PEERJS_KEY, PEERJS_PATH } from '../../protocol/signaling.js';
import { controlUrl } from '../../signaling/backend-dispatch.js';
import { ADMIN_KEY, PROJECT, SECRET, TOKEN, sleep, type Frame } from './signaling-support.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Bytes in a MiB, for messages and bounds. */
export const MB = 1024 * 1024;

/** The address every liveness check joins from: never the one an attack used up. */
export const HONEST_ADDRESS = '127.0.0.254';

// ─── the server as a child process ─────────────────────────────────────────

/**
 * `node --import tsx signaling/bin.ts --port 0 --host 127.0.0.1 --project demo:TOKEN …` in its
 * own process with its own data directory. `exit` is set when it ends; `output` keeps what it
 * printed (a crash's stack is on stderr), for the failure messages.
 */
export class ServerProcess {
  readonly output: string[] = [];
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  /** Resolves when the process has ended (never rejects). */
  readonly exited: Promise<void>;
  url = '';

  private constructor(
    readonly child: ChildProcess,
    readonly dataDir: string,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve();
      });
    });
    const keep = (chunk: Buffer): void => {
      this.output.push(String(chunk));
      // Bounded: a server that logs every refusal must not fill the test runner.
      if (this.output.length > 2_000) this.output.splice(0, 1_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  /**
   * Starts a server and waits for its `platform-kit signaling: URL` line (15 s at most).
   * `extra`: more bin flags (`--redis URL`, `--max-events-per-second N`…).
   */
  static async start(extra: readonly string[] = []): Promise<ServerProcess> {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-hostile-'));
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'signaling/bin.ts',
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--project',
        `${PROJECT}:${TOKEN}`,
        '--project',
        'other:other-token',
        '--data-dir',
        dataDir,
        '--admin-key',
        ADMIN_KEY,
        '--identity-secret',
        SECRET,
        ...extra,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const server = new ServerProcess(child, dataDir);
    const line = /platform-kit signaling: (http:\/\/\S+)/;
    const deadline = Date.now() + 15_000;
    for (;;) {
      const match = line.exec(server.output.join(''));
      if (match) {
        server.url = match[1]!;
        return server;
      }
      if (server.exit) throw new Error(`the server exited (${server.exit.code ?? server.exit.signal}) before listening:\n${server.tail()}`);
      if (Date.now() > deadline) {
        await server.stop();
        throw new Error(`the server did not listen within 15 s:\n${server.tail()}`);
      }
      await sleep(20);
    }
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.exit === null;
  }

  /** Its resident set size now, from /proc/<pid>/status (0 once it is gone). */
  rssBytes(): number {
    return rssOf(this.pid);
  }

  /** The end of what it printed. */
  tail(chars = 2_500): string {
    const text = this.output.join('');
    return text.length > chars ? `…${text.slice(-chars)}` : text;
  }

  /** How it ended, in words, or 'running'. */
  describeExit(): string {
    if (!this.exit) return 'running';
    return this.exit.signal ? `killed by ${this.exit.signal}` : `exited with code ${this.exit.code}`;
  }

  /** SIGTERM, SIGKILL after 3 s; removes its data directory. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.exit === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (this.exit === null) this.child.kill('SIGKILL');
      }, 3_000);
      await this.exited;
      clearTimeout(timer);
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** VmRSS of a process in bytes (0 when it is gone). */
export function rssOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples a process's RSS every `intervalMs` until stopped: its baseline and its peak. */
export class RssWatch {
  readonly baselineBytes: number;
  peakBytes: number;
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(
    readonly pid: number,
    intervalMs = 40,
  ) {
    this.baselineBytes = rssOf(pid);
    this.peakBytes = this.baselineBytes;
    this.#timer = setInterval(() => this.sample(), intervalMs);
    // A test that fails before stop() must not keep the runner alive.
    this.#timer.unref();
  }

  sample(): void {
    this.peakBytes = Math.max(this.peakBytes, rssOf(this.pid));
  }

  /** Peak minus baseline, in bytes. */
  get growthBytes(): number {
    return this.peakBytes - this.baselineBytes;
  }

  stop(): number {
    this.sample();
    clearInterval(this.#timer);
    return this.growthBytes;
  }

  describe(): string {
    return `RSS ${(this.baselineBytes / MB).toFixed(0)} MB -> peak ${(this.peakBytes / MB).toFixed(0)} MB (+${(this.growthBytes / MB).toFixed(1)} MB)`;
  }
}

// ─── liveness ──────────────────────────────────────────────────────────────

/** GET a path of the server; resolves the status, rejects when nothing answers within `timeoutMs`. */
export async function httpStatus(url: string, path: string, timeoutMs = 5_000): Promise<number> {
  const response = await fetch(new URL(path, url), { signal: AbortSignal.timeout(timeoutMs) });
  await response.arrayBuffer();
  return response.status;
}

/** POSTs a raw body; resolves the status and body text (`error` when the connection failed). */
export async function httpPost(
  url: string,
  path: string,
  body: string,
  headers: Record<string, string> = {},
  timeoutMs = 5_000,
): Promise<{ status: number; text: string } | { error: string }> {
  try {
    const response = await fetch(new URL(path, url), { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    return { error: String((error as { cause?: unknown }).cause ?? error) };
  }
}

let honestShards = 0;

/**
 * Two fresh clients (from {@link HONEST_ADDRESS}) join a fresh shard and one hears the other's
 * event: what every user of the server needs still works.
 */
export async function honestExchange(url: string, timeoutMs = 5_000): Promise<void> {
  const shardName = `alive-${process.pid}-${++honestShards}-${Date.now().toString(36)}`;
  const a = new Wire(controlUrl(url), { clientOptions: { localAddress: HONEST_ADDRESS } });
  const b = new Wire(controlUrl(url), { clientOptions: { localAddress: HONEST_ADDRESS } });
  try {
    const joinedA = await a.join({ shardName }, timeoutMs);
    const joinedB = await b.join({ shardName }, timeoutMs);
    assert.equal(joinedA.type, 'joined', `honest join: ${JSON.stringify(joinedA)}`);
    assert.equal(joinedB.type, 'joined', `honest join: ${JSON.stringify(joinedB)}`);
    const heard = b.next((f) => f.type === 'event' && f['name'] === 'alive', timeoutMs);
    a.send(JSON.stringify({ type: 'emit', seq: 1, name: 'alive', payload: { ok: true }, ts: 0 }));
    const event = await heard;
    assert.deepEqual(event['payload'], { ok: true });
    assert.equal(event['from'], joinedA['clientId']);
  } finally {
    a.terminate();
    b.terminate();
  }
}

/**
 * Fails (with how the process ended and its last output) unless the server still runs,
 * answers GET /health with 200, and lets a fresh honest pair join and exchange an event.
 */
export async function assertAlive(server: ServerProcess, context: string): Promise<void> {
  // A crash takes a moment to be reported: give the exit event its turn first.
  await sleep(50);
  if (!server.running) assert.fail(`${context}: the server process ${server.describeExit()}. Its last output:\n${server.tail()}`);
  let status: number;
  try {
    status = await httpStatus(server.url, '/health');
  } catch (error) {
    assert.fail(`${context}: GET /health got no answer (${String(error)}); the process is ${server.describeExit()}. Output:\n${server.tail()}`);
  }
  assert.equal(status, 200, `${context}: GET /health answered ${status}`);
  try {
    await honestExchange(server.url);
  } catch (error) {
    assert.fail(`${context}: a fresh honest pair could not join and exchange an event (${String(error)}); the process is ${server.describeExit()}. Output:\n${server.tail()}`);
  }
}

/** Resolves when the server process ends or `ms` pass, whichever comes first. */
export async function exitOrTimeout(server: ServerProcess, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([server.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

// ─── raw sockets ───────────────────────────────────────────────────────────

export interface WireOptions {
  /** Subprotocols to offer (a handshake join). */
  readonly protocols?: readonly string[];
  /** More ws client options (`localAddress`, `headers`, `origin`…). */
  readonly clientOptions?: ClientOptions;
  /** Parse and keep frames nobody waits for (default true; false for floods: only counted). */
  readonly record?: boolean;
  /** At most this many kept frames (default 5,000); later ones are counted, not kept. */
  readonly maxRecorded?: number;
}

/**
 * One raw WebSocket (control or PeerJS): parses and keeps what it receives (bounded), waits
 * for a frame, records how it closed, and can stop reading its TCP socket (a client that
 * never reads) or be told to read again.
 */
export class Wire {
  readonly ws: WebSocket;
  readonly frames: Frame[] = [];
  received = 0;
  receivedBytes = 0;
  closedWith: { code: number; reason: string } | null = null;
  /** Resolves with the close code and reason (never rejects). */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Resolves once open; rejects when the connection or upgrade failed. */
  readonly opened: Promise<void>;
  readonly errors: string[] = [];
  readonly #record: boolean;
  readonly #maxRecorded: number;
  #waiters: { test: (frame: Frame) => boolean; resolve: (frame: Frame) => void }[] = [];
  #nextId = 1;

  constructor(url: string, options: WireOptions = {}) {
    this.#record = options.record ?? true;
    this.#maxRecorded = options.maxRecorded ?? 5_000;
    this.ws = new WebSocket(url, [...(options.protocols ?? [])], { perMessageDeflate: false, maxPayload: 512 * MB, ...options.clientOptions });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused: HTTP ${response.statusCode}`)));
      this.ws.once('error', reject);
    });
    // Kept: a rejected `opened` nobody awaited must not fail the run.
    this.opened.catch(() => undefined);
    this.ws.on('error', (error) => this.errors.push(String(error)));
    this.closed = new Promise((resolve) => {
      this.ws.once('close', (code, reason) => {
        this.closedWith = { code, reason: String(reason) };
        resolve(this.closedWith);
      });
    });
    this.ws.on('message', (data: RawData, isBinary: boolean) => this.#onMessage(data, isBinary));
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    this.received++;
    const bytes = Buffer.isBuffer(data) ? data.length : Array.isArray(data) ? data.reduce((sum, part) => sum + part.length, 0) : data.byteLength;
    this.receivedBytes += bytes;
    if (!this.#record && this.#waiters.length === 0) return;
    let frame: Frame;
    try {
      const value: unknown = JSON.parse(String(data));
      frame =
        typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as Frame).type === 'string' ? (value as Frame) : { type: '<not a frame>', value };
    } catch {
      frame = { type: isBinary ? '<binary>' : '<not JSON>', text: String(data).slice(0, 200) };
    }
    for (const waiter of [...this.#waiters]) {
      if (waiter.test(frame)) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(frame);
        return;
      }
    }
    if (this.#record && this.frames.length < this.#maxRecorded) this.frames.push(frame);
  }

  /** The first kept frame that passes `test` (removed from `frames`), or the next one to arrive. */
  next(test: (frame: Frame) => boolean, timeoutMs = 5_000): Promise<Frame> {
    const seen = this.frames.find(test);
    if (seen) {
      this.frames.splice(this.frames.indexOf(seen), 1);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        test,
        resolve: (frame: Frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        const state = this.closedWith ? `closed ${this.closedWith.code} ${this.closedWith.reason}` : ['connecting', 'open', 'closing', 'closed'][this.ws.readyState];
        reject(new Error(`no matching frame within ${timeoutMs} ms (socket ${state}); last frames: ${JSON.stringify(this.frames.slice(-3)).slice(0, 600)}`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** The next frame that passes `test`, or null after `timeoutMs`. */
  async maybeNext(test: (frame: Frame) => boolean, timeoutMs: number): Promise<Frame | null> {
    try {
      return await this.next(test, timeoutMs);
    } catch {
      return null;
    }
  }

  send(data: string | Buffer, binary = false): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(data, { binary });
  }

  /** Sends a control request with a fresh id; resolves the frame answering that id. */
  async request(frame: Record<string, unknown>, timeoutMs = 5_000): Promise<Frame> {
    await this.opened;
    const id = this.#nextId++;
    const answer = this.next((f) => f['id'] === id, timeoutMs);
    this.send(JSON.stringify({ ...frame, id }));
    return answer;
  }

  /** A browser join (control sockets), `extra` merged in. */
  join(extra: Record<string, unknown> = {}, timeoutMs = 5_000): Promise<Frame> {
    return this.request({ type: 'join', v: 1, projectId: PROJECT, kind: 'browser', ...extra }, timeoutMs);
  }

  get #socket(): Socket | undefined {
    return (this.ws as unknown as { _socket?: Socket })._socket;
  }

  /** Stops reading: the server's buffer for this socket grows from here on. */
  pause(): void {
    this.#socket?.pause();
  }

  /** Reads again (so a close frame the server sent meanwhile arrives). */
  resume(): void {
    this.#socket?.resume();
  }

  /** Bytes this side has not handed to the kernel yet. */
  get unsentBytes(): number {
    return this.ws.bufferedAmount + (this.#socket?.writableLength ?? 0);
  }

  get isOpen(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  terminate(): void {
    this.ws.terminate();
  }

  /** Resumes reading and waits up to `timeoutMs` for the close; null when the socket stayed open. */
  async closeWithin(timeoutMs: number): Promise<{ code: number; reason: string } | null> {
    this.resume();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const result = await Promise.race([this.closed, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)))]);
    clearTimeout(timer);
    return result;
  }
}

/** A control socket (`/dispatch`) of the server at `url`. */
export function controlWire(url: string, options: WireOptions = {}): Wire {
  return new Wire(controlUrl(url), options);
}

/** A PeerJS socket of the server at `url` for an issued peer id and token. */
export function peerWire(url: string, peer: { id: string; token: string }, options: WireOptions = {}): Wire {
  const base = new URL(url);
  base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  base.pathname = `${PEERJS_PATH}peerjs`;
  base.search = new URLSearchParams({ key: PEERJS_KEY, id: peer.id, token: peer.token, version: '1.5.5' }).toString();
  return new Wire(base.href, options);
}

/** A joined browser member: its control socket, client id and peer id. */
export interface Member {
  readonly control: Wire;
  readonly clientId: string;
  readonly peer: { readonly id: string; readonly token: string };
  readonly joined: Frame;
}

/** Joins a browser member to `shardName` (fails the test on any other answer). */
export async function joinMember(url: string, shardName: string, options: WireOptions = {}, extra: Record<string, unknown> = {}): Promise<Member> {
  const control = controlWire(url, options);
  const joined = await control.join({ shardName, ...extra });
  assert.equal(joined.type, 'joined', `join of ${shardName}: ${JSON.stringify(joined)}`);
  return { control, clientId: joined['clientId'] as string, peer: joined['peer'] as { id: string; token: string }, joined };
}

/** Opens a member's PeerJS socket and waits for its OPEN. */
export async function openPeer(url: string, member: Member, options: WireOptions = {}): Promise<Wire> {
  const wire = peerWire(url, member.peer, options);
  await wire.next((f) => f.type === 'OPEN', 5_000);
  return wire;
}

/** Runs `count` async jobs, `parallel` at a time; resolves their results in order. */
export async function inBatches<T>(count: number, parallel: number, job: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await job(index);
      }
    }),
  );
  return results;
}

const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Sends `frame(i)` for i = 0, 1, … as fast as the socket takes them, until `ms` pass,
 * `maxFrames` were sent or the socket is no longer open; never lets this side's own unsent
 * bytes grow past `highWaterBytes` (the flood is the server's problem, not the runner's).
 */
export async function floodFor(
  wire: Wire,
  frame: (index: number) => string | Buffer,
  options: { readonly ms: number; readonly maxFrames: number; readonly highWaterBytes?: number; readonly binary?: boolean },
): Promise<{ sent: number; ms: number }> {
  const start = Date.now();
  const deadline = start + options.ms;
  const highWater = options.highWaterBytes ?? 4 * MB;
  let sent = 0;
  while (sent < options.maxFrames && Date.now() < deadline && wire.isOpen) {
    if (wire.unsentBytes > highWater) {
      await sleep(2);
      continue;
    }
    wire.ws.send(frame(sent), { binary: options.binary ?? false });
    sent++;
    if (sent % 64 === 0) await yieldTurn();
  }
  return { sent, ms: Date.now() - start };
}

// ─── hostile JSON ──────────────────────────────────────────────────────────

/** `depth` nested arrays, `[[[…]]]`: 2 bytes a level, the cheapest deep JSON. */
export const deepArray = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

/** A JSON object whose nesting is `depth` levels in all (the object itself is one): `{"d":[[…]]}`. */
export const deepPayload = (depth: number): string => `{"d":${deepArray(Math.max(0, depth - 1))}}`;

/** `depth` nested objects, `{"a":{"a":…{}}}`. */
export const deepObjects = (depth: number): string => '{"a":'.repeat(Math.max(0, depth - 1)) + '{}' + '}'.repeat(Math.max(0, depth - 1));

/** Keys that reach Object.prototype on a plain object. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__', 'isPrototypeOf'] as const;

/** A small deterministic PRNG (mulberry32): a failing fuzz case is the same case on every run. */
export function prng(seed: number): { next(): number; int(maxExclusive: number): number; pick<T>(items: readonly T[]): T } {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (maxExclusive) => Math.floor(next() * maxExclusive),
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}

/** Runs what a test opened, last first, in its after hook: sockets terminated, processes stopped by pid. */
export class Cleanup {
  readonly #jobs: (() => unknown)[] = [];

  defer(job: () => unknown): void {
    this.#jobs.push(job);
  }

  wire<T extends Wire>(wire: T): T {
    this.defer(() => wire.terminate());
    return wire;
  }

  member<T extends Member>(member: T): T {
    this.wire(member.control);
    return member;
  }

  async run(): Promise<void> {
    for (const job of this.#jobs.splice(0).reverse()) {
      try {
        await job();
      } catch {
        // Cleanup goes on: one socket already gone must not keep a process running.
      }
    }
  }
}

/** The error code of an `error` frame. */
export const errorCode = (frame: Frame | null | undefined): string | undefined => (frame?.['error'] as { code?: string } | undefined)?.code;

// ─── fuzz checks ───────────────────────────────────────────────────────────

/** Deepest nesting of a parsed JSON value, walked with a stack (a recursive walk is what breaks). */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(item as Record<string, unknown>)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Frame types the PeerJS side of the server may send. */
const PEER_SERVER_TYPES = new Set(['OPEN', 'OFFER', 'ANSWER', 'CANDIDATE', 'LEAVE', 'EXPIRE', 'ERROR', 'ID-TAKEN', 'INVALID-KEY', 'HEARTBEAT']);

/** What is wrong with a frame a PeerJS socket received, or null. */
export function peerFrameProblem(frame: Frame): string | null {
  if (!PEER_SERVER_TYPES.has(frame.type)) return `unknown peer frame ${JSON.stringify(frame).slice(0, 200)}`;
  if (['OFFER', 'ANSWER', 'CANDIDATE', 'LEAVE', 'EXPIRE'].includes(frame.type) && typeof frame['src'] !== 'string')
    return `peer frame without src ${JSON.stringify(frame).slice(0, 200)}`;
  return null;
}

/** A raw TCP connection that sent an HTTP upgrade by hand: the status line and headers it got back. */
export interface RawUpgrade {
  readonly socket: Socket;
  /** `HTTP/1.1 101 Switching Protocols`, a refusal, or '' when the server closed without a word. */
  readonly status: string;
  readonly head: string;
  /** Bytes after the headers (a `joined` right behind the 101). */
  readonly rest: Buffer;
}

/**
 * Sends an upgrade request by hand (headers a ws client would refuse to send: malformed
 * subprotocols, 15 KB values…) and reads the answer's head (or the close).
 */
export async function rawUpgrade(
  url: string,
  path: string,
  headers: Record<string, string> = {},
  options: { localAddress?: string; timeoutMs?: number } = {},
): Promise<RawUpgrade> {
  const { connect } = await import('node:net');
  const target = new URL(url);
  const socket = connect({ host: target.hostname, port: Number(target.port), ...(options.localAddress ? { localAddress: options.localAddress } : {}) });
  socket.on('error', () => undefined);
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: ${target.host}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Key: ${Buffer.from('0123456789abcdef').toString('base64')}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.write(lines.join('\r\n') + '\r\n\r\n');
  return new Promise((resolve) => {
    let seen = Buffer.alloc(0);
    const finish = (): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      const at = seen.indexOf('\r\n\r\n');
      const head = at < 0 ? seen.toString('latin1') : seen.subarray(0, at).toString('latin1');
      resolve({ socket, status: head.split('\r\n')[0] ?? '', head, rest: at < 0 ? Buffer.alloc(0) : seen.subarray(at + 4) });
    };
    const onData = (chunk: Buffer): void => {
      seen = Buffer.concat([seen, chunk]);
      if (seen.includes('\r\n\r\n')) setTimeout(finish, 30);
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 3_000);
    socket.on('data', onData);
    socket.once('close', finish);
  });
}

/**
 * One WebSocket frame built by hand, masked as a client's must be unless `mask: false`;
 * `length` overrides the length field (a lie), `rsv` sets reserved bits, `fin: false` leaves it open.
 */
export function wsFrame(opcode: number, payload: Buffer, options: { mask?: boolean; fin?: boolean; rsv?: number; length?: bigint } = {}): Buffer {
  const mask = options.mask ?? true;
  const first = ((options.fin ?? true) ? 0x80 : 0) | ((options.rsv ?? 0) << 4) | (opcode & 0x0f);
  const length = options.length ?? BigInt(payload.length);
  let header: Buffer;
  if (length < 126n) header = Buffer.from([first, (mask ? 0x80 : 0) | Number(length)]);
  else if (length < 65536n) {
    header = Buffer.alloc(4);
    header[0] = first;
    header[1] = (mask ? 0x80 : 0) | 126;
    header.writeUInt16BE(Number(length), 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = (mask ? 0x80 : 0) | 127;
    header.writeBigUInt64BE(length, 2);
  }
  if (!mask) return Buffer.concat([header, payload]);
  const key = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i++) masked[i]! ^= key[i % 4]!;
  return Buffer.concat([header, key, masked]);
}

/** What a raw socket saw of the server's closing: the close frame's code (null if none came) and how long the TCP connection lasted after it. */
export interface UnansweredClose {
  readonly code: number | null;
  /** Ms from the close frame to the end of the TCP connection; null when it was still open at the timeout. */
  readonly endedAfterMs: number | null;
}

/**
 * Reads the server's frames on a raw upgraded socket (from `raw.rest` on), never answering a
 * close frame (a client that ignores the closing handshake): resolves once the connection
 * ends or `timeoutMs` pass. Server frames are unmasked; only their opcodes and the close code
 * are looked at.
 */
export function watchUnansweredClose(raw: RawUpgrade, timeoutMs: number): Promise<UnansweredClose> {
  return new Promise((resolve) => {
    let pending = raw.rest;
    let code: number | null = null;
    let closeFrameAt = 0;
    const scan = (): void => {
      for (;;) {
        if (pending.length < 2) return;
        const opcode = pending[0]! & 0x0f;
        let length = pending[1]! & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (pending.length < 4) return;
          length = pending.readUInt16BE(2);
          offset = 4;
        } else if (length === 127) {
          if (pending.length < 10) return;
          length = Number(pending.readBigUInt64BE(2));
          offset = 10;
        }
        if (pending.length < offset + length) return;
        if (opcode === 0x8 && code === null) {
          code = length >= 2 ? pending.readUInt16BE(offset) : 1005;
          closeFrameAt = Date.now();
        }
        pending = pending.subarray(offset + length);
      }
    };
    const finish = (ended: boolean): void => {
      clearTimeout(timer);
      raw.socket.off('data', onData);
      resolve({ code, endedAfterMs: ended && code !== null ? Date.now() - closeFrameAt : null });
    };
    const onData = (chunk: Buffer): void => {
      pending = Buffer.concat([pending, chunk]);
      scan();
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    scan();
    if (raw.socket.destroyed) return finish(true);
    raw.socket.on('data', onData);
    raw.socket.once('close', () => finish(true));
  });
}
