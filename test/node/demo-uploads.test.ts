/**
 * The demo's anonymous uploads under attack (issue 23, "Degraded: the demo's anonymous uploads"):
 * the real `demo/serve.ts` in a child process, many 8 MB uploads from one address in parallel and
 * in sequence, uploads held open to fill the caps at once, bodies over the size cap, and uploads
 * that expire (a TTL of 2 s by DEMO_UPLOAD_TTL_SECONDS), on a running demo and across a restart.
 *
 * Memory is the child's own (VmRSS of /proc/<pid>/status), sampled all along: the invariant is a
 * bound on its growth with a wide margin, never a timing. Client addresses are 127.0.0.x (all
 * loopback on Linux), so each part of the test has a quota of its own.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MIB = 1024 * 1024;
/** The demo's default cap, quota and caps at once (demo/lib/upload-limits.ts): the test holds the defaults to them. */
const MAX_UPLOAD = 8 * MIB;
const QUOTA_BYTES = 64 * MIB;
const PER_ADDRESS_AT_ONCE = 2;
const AT_ONCE = 8;
/** Growth of the child's RSS the test allows: buffering the parallel uploads whole (the old route) takes several times it. */
const RSS_GROWTH_BOUND = 120 * MIB;

interface Demo {
  readonly child: ChildProcess;
  readonly port: number;
  readonly exited: Promise<void>;
  readonly output: () => string;
}

async function startDemo(dataDir: string, env: Record<string, string> = {}): Promise<Demo> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/serve.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', DEMO_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = /feed\s+http:\/\/localhost:(\d+)\//.exec(output);
    if (found?.[1]) return { child, port: Number(found[1]), exited, output: () => output };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the demo did not start:\n${output}`);
    }
    await sleep(100);
  }
}

async function stopDemo(demo: Demo, signal: NodeJS.Signals): Promise<void> {
  if (demo.child.exitCode === null && demo.child.signalCode === null) demo.child.kill(signal);
  await demo.exited;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The child's resident memory, bytes. */
function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

interface Answer {
  readonly status: number;
  readonly body: { url?: string; expiresAt?: number; error?: { code?: string; message?: string } };
  readonly retryAfter: string | undefined;
}

/** A PUT of an upload whose body the caller sends; `answer` settles with the server's answer. */
function openUpload(port: number, from: string, headers: Record<string, string>): { req: ClientRequest; answer: Promise<Answer> } {
  const req = request({ host: '127.0.0.1', port, localAddress: from, method: 'PUT', path: '/demo-api/upload', agent: false, headers: { 'content-type': 'image/png', ...headers } });
  const answer = new Promise<Answer>((resolve, reject) => {
    // 60 s: far over any answer here, so a hung route fails the test instead of hanging it.
    const timer = setTimeout(() => reject(new Error(`no answer to an upload from ${from} in 60 s`)), 60_000);
    req.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.once('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Answer['body'], retryAfter: response.headers['retry-after'] });
      });
    });
  });
  return { req, answer };
}

/** One whole upload of `body` from `from`, its size declared. */
function upload(port: number, from: string, body: Buffer): Promise<Answer> {
  const { req, answer } = openUpload(port, from, { 'content-length': String(body.length) });
  req.end(body);
  return answer;
}

/** Files in the uploads folder: stored ones and the CDN's temporaries of uploads under way. */
function uploadsOnDisk(dataDir: string): { files: string[]; temporaries: string[] } {
  const directory = join(dataDir, 'cdn', 'demo', 'uploads');
  const names = existsSync(directory) ? readdirSync(directory) : [];
  return { files: names.filter((name) => !name.endsWith('.tmp')), temporaries: names.filter((name) => name.endsWith('.tmp')) };
}

async function until(what: string, check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

function assertRateLimited(answer: Answer, message: RegExp): void {
  assert.equal(answer.status, 429, JSON.stringify(answer.body));
  assert.equal(answer.body.error?.code, 'RATE_LIMITED');
  assert.match(answer.body.error?.message ?? '', message);
  assert.match(answer.retryAfter ?? '', /^\d+$/);
}

describe("the demo's anonymous uploads (PUT /demo-api/upload)", () => {
  const large = Buffer.alloc(MAX_UPLOAD, 7);
  let dataDir = '';
  let demo: Demo | undefined;
  let peakRss = 0;
  let sampler: NodeJS.Timeout | undefined;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'demo-uploads-'));
    demo = await startDemo(dataDir);
  });
  after(async () => {
    clearInterval(sampler);
    if (demo) await stopDemo(demo, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('many 8 MB uploads from one address, in parallel and in sequence: RSS stays bounded; past the caps and the quota, 429 RATE_LIMITED', async () => {
    const { port, child } = demo!;
    const warm = await upload(port, '127.0.0.20', Buffer.alloc(64 * 1024, 1));
    assert.equal(warm.status, 201, JSON.stringify(warm.body));
    await sleep(500);
    const baseline = Math.max(rssOf(child.pid!), rssOf(child.pid!));
    peakRss = baseline;
    sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf(child.pid!))), 20);

    // 24 at once from one address: at most 2 are received at once and 8 fit the quota.
    const parallel = await Promise.all(Array.from({ length: 24 }, () => upload(port, '127.0.0.2', large)));
    // One after another from another address: 8 × 8 MB fill its 64 MB, the 9th and 10th are refused.
    const sequence: Answer[] = [];
    for (let index = 0; index < 10; index++) sequence.push(await upload(port, '127.0.0.3', large));

    clearInterval(sampler);
    const growth = peakRss - baseline;
    console.log(`  RSS: baseline ${(baseline / MIB).toFixed(0)} MB, peak ${(peakRss / MIB).toFixed(0)} MB (+${(growth / MIB).toFixed(0)} MB) over ${34 * 8} MB sent`);
    assert.ok(growth < RSS_GROWTH_BOUND, `RSS grew by ${(growth / MIB).toFixed(0)} MB (bound ${RSS_GROWTH_BOUND / MIB} MB)`);

    const created = parallel.filter((answer) => answer.status === 201);
    for (const answer of parallel.filter((each) => each.status !== 201)) assertRateLimited(answer, /at once|bytes within/);
    assert.ok(created.length >= 1 && created.length <= QUOTA_BYTES / MAX_UPLOAD, `created ${created.length} of 24`);
    assert.deepEqual(
      sequence.map((answer) => answer.status),
      [201, 201, 201, 201, 201, 201, 201, 201, 429, 429],
    );
    for (const answer of sequence.slice(8)) assertRateLimited(answer, /bytes within/);
    for (const answer of sequence.slice(0, 8)) assert.match(answer.body.url ?? '', /^\/media\/uploads\/[A-Za-z0-9_-]+\.png$/);
    const disk = uploadsOnDisk(dataDir);
    assert.equal(disk.files.length, 1 + created.length + 8, 'every 201 is a file, no refused upload is');
    assert.deepEqual(disk.temporaries, []);
  });

  it('uploads at once: a 3rd from one address and a 9th from all are refused before their bodies; the held ones then complete', async () => {
    const { port } = demo!;
    const held: Array<{ req: ClientRequest; answer: Promise<Answer> }> = [];
    const hold = (from: string): void => {
      const upload = openUpload(port, from, { 'content-length': String(2 * MIB) });
      upload.req.write(Buffer.alloc(64 * 1024, 3));
      // Awaited below; a test that failed before that must not leave a rejection unheard.
      upload.answer.catch(() => undefined);
      held.push(upload);
    };
    // Admitted uploads are streamed into the CDN at once: its temporaries say they are under way.
    hold('127.0.0.4');
    hold('127.0.0.4');
    await until('2 uploads under way', () => uploadsOnDisk(dataDir).temporaries.length === PER_ADDRESS_AT_ONCE, 10_000);
    assertRateLimited(await upload(port, '127.0.0.4', Buffer.alloc(1024, 4)), /this address has 2 uploads under way/);
    for (const from of ['127.0.0.5', '127.0.0.6', '127.0.0.7']) {
      hold(from);
      hold(from);
    }
    await until('8 uploads under way', () => uploadsOnDisk(dataDir).temporaries.length === AT_ONCE, 10_000);
    assertRateLimited(await upload(port, '127.0.0.8', Buffer.alloc(1024, 4)), /receives 8 uploads at once/);
    for (const { req } of held) req.end(Buffer.alloc(2 * MIB - 64 * 1024, 5));
    const answers = await Promise.all(held.map(({ answer }) => answer));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array<number>(AT_ONCE).fill(201),
    );
    assert.equal((await upload(port, '127.0.0.8', Buffer.alloc(1024, 4))).status, 201, 'places free again');
  });

  it('over the size cap: a declared size is refused 413 before the body, a chunked body at the cap; nothing is kept', async () => {
    const { port } = demo!;
    const before = uploadsOnDisk(dataDir).files.length;
    // The client waits for the answer before it sends a byte: the refusal must not need the body.
    const declared = openUpload(port, '127.0.0.10', { 'content-length': String(MAX_UPLOAD + 1) });
    declared.req.flushHeaders();
    const refused = await declared.answer;
    declared.req.destroy();
    assert.equal(refused.status, 413);
    assert.equal(refused.body.error?.code, 'PAYLOAD_TOO_LARGE');

    const chunked = openUpload(port, '127.0.0.11', {});
    for (let sent = 0; sent <= MAX_UPLOAD; sent += 256 * 1024) chunked.req.write(Buffer.alloc(256 * 1024, 6));
    chunked.req.end();
    const cut = await chunked.answer;
    assert.equal(cut.status, 413);
    assert.equal(cut.body.error?.code, 'PAYLOAD_TOO_LARGE');
    await until("the cut upload's temporary removed", () => uploadsOnDisk(dataDir).temporaries.length === 0, 10_000);
    assert.equal(uploadsOnDisk(dataDir).files.length, before);
  });
});

describe("the demo's uploads expire (DEMO_UPLOAD_TTL_SECONDS=2)", () => {
  let dataDir = '';
  const demos: Demo[] = [];
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'demo-expiry-'));
  });
  after(async () => {
    for (const demo of demos) await stopDemo(demo, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  const media = async (port: number, url: string): Promise<{ status: number; body: Buffer }> => {
    const response = await fetch(`http://127.0.0.1:${port}${url}`, { signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
  };

  it('an expired upload is deleted from disk by the sweep and answers 404; one that expired while the demo was down is deleted at start', async () => {
    const env = { DEMO_UPLOAD_TTL_SECONDS: '2' };
    const first = await startDemo(dataDir, env);
    demos.push(first);
    const image = Buffer.from('not really a png, and the CDN does not look');
    const sentAt = Date.now();
    const stored = await upload(first.port, '127.0.0.12', image);
    const answeredAt = Date.now();
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    const url = stored.body.url ?? '';
    assert.match(url, /^\/media\/uploads\//);
    const file = join(dataDir, 'cdn', 'demo', url.slice('/media/'.length));
    const served = await media(first.port, url);
    assert.equal(served.status, 200);
    assert.deepEqual(served.body, image);
    assert.ok(existsSync(file));
    // No request touches it meanwhile: the sweep alone removes the file.
    await until('the expired upload deleted from disk', () => !existsSync(file), 15_000);
    const gone = await media(first.port, url);
    assert.equal(gone.status, 404);
    const expiresAt = stored.body.expiresAt ?? 0;
    assert.ok(expiresAt >= sentAt + 2_000 && expiresAt <= answeredAt + 2_000, 'expiresAt is the TTL after the upload');

    // Killed (no sweep of its own), restarted past the TTL: the start sweeps it.
    const second = await upload(first.port, '127.0.0.12', image);
    assert.equal(second.status, 201);
    const secondFile = join(dataDir, 'cdn', 'demo', (second.body.url ?? '').slice('/media/'.length));
    await stopDemo(first, 'SIGKILL');
    assert.ok(existsSync(secondFile));
    await sleep(Math.max(0, (second.body.expiresAt ?? 0) - Date.now()) + 100);
    const restarted = await startDemo(dataDir, env);
    demos.push(restarted);
    assert.ok(!existsSync(secondFile), 'deleted by the sweep at start');
    assert.equal((await media(restarted.port, second.body.url ?? '')).status, 404);
  });
});
