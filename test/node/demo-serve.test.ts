/**
 * `npm start` as a newcomer meets it (issue 17): the real `demo/serve.ts` in a
 * child process. A port in use is one line that says what to do, not a stack;
 * Ctrl-C stops it even while a browser tab holds connections open.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { get, Agent } from 'node:http';
import { createServer, type Server } from 'node:net';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function serve(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/serve.ts'], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, output: () => output, exited };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

describe('npm start (demo/serve.ts)', () => {
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  it('HOST and PORT choose the address; one in use is one line naming it and the way out, exit 1, no stack', async () => {
    // 127.0.0.2 is loopback too: taken there, free on 127.0.0.1, so only a demo that honours HOST meets the blocker.
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.2', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const started = serve({ PORT: String(port), HOST: '127.0.0.2' });
      children.push(started.child);
      const { code } = await within(started.exited, 60_000, 'the refusal');
      assert.equal(code, 1);
      const lines = started
        .output()
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('platform-kit demo:'));
      assert.deepEqual(lines.length, 1, started.output());
      assert.match(lines[0] ?? '', new RegExp(`127\\.0\\.0\\.2:${port} is in use.*PORT=`));
      assert.doesNotMatch(started.output(), /\n\s+at /, 'no stack trace');
    } finally {
      blocker.close();
    }
  });

  it('a PORT that is not a port (abc, 99999, -1) is one line saying what a port is, exit 1, no stack', async () => {
    for (const PORT of ['abc', '99999', '-1']) {
      const started = serve({ PORT });
      children.push(started.child);
      const { code } = await within(started.exited, 60_000, `the refusal of PORT=${PORT}`);
      assert.equal(code, 1, started.output());
      assert.match(started.output(), new RegExp(`PORT wants a whole number from 0 \\(any free port\\) to 65535, got "${PORT}"`));
      assert.doesNotMatch(started.output(), /\n\s+at /, 'no stack trace');
    }
  });

  it('Ctrl-C stops it while a tab keeps its page connection, the HMR socket and a Dispatch socket open', async () => {
    const started = serve({ PORT: '0' });
    children.push(started.child);
    const url = await within(
      (async () => {
        for (;;) {
          const found = /feed\s+(http:\/\/localhost:\d+)\//.exec(started.output());
          if (found?.[1]) return found[1];
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })(),
      60_000,
      'the demo to start',
    );
    const port = new URL(url).port;
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => get(`http://127.0.0.1:${port}/`, { agent }, (response) => response.resume().once('end', resolve)).once('error', reject));
    const hmr = new WebSocket(`ws://127.0.0.1:${port}/`, 'vite-hmr');
    await new Promise<void>((resolve, reject) => hmr.once('open', resolve).once('error', reject));
    hmr.on('error', () => undefined);
    // A template's Dispatch client, joined, through the demo's tunnel to the signaling server.
    const dispatch = new WebSocket(`ws://127.0.0.1:${port}/dispatch`, { headers: { origin: `http://127.0.0.1:${port}` } });
    dispatch.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => dispatch.once('open', resolve).once('error', reject));
    dispatch.send(JSON.stringify({ type: 'join', id: 1, projectId: 'demo', shardName: 'lobby' }));
    await new Promise<void>((resolve) => dispatch.once('message', () => resolve()));
    started.child.kill('SIGINT');
    const { code } = await within(started.exited, 5_000, 'stopping after Ctrl-C');
    assert.equal(code, 0);
    agent.destroy();
  });
});
