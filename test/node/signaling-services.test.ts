// The integrated server: one createSignalingServer serves shards and the
// platform services on one port, with one identity. A token from the services
// route identifies a Dispatch client (and a token the server signs resolves
// through the services); the keystore and the CDN answer on the same port;
// close() releases everything, so a process that used it exits on its own;
// the `platform-kit-server` bin takes the services options.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Keystore, PlatformBackend, requestUserToken, type SignalingServer } from '../../signaling/index.js';
import { ADMIN_KEY, backend, PROJECT, startServer, TOKEN, waitFor } from './signaling-support.js';

const OWNER = 'olivia';

describe('signaling server with its services', () => {
  let server: SignalingServer;
  before(async () => {
    server = await startServer({ projects: { [PROJECT]: { token: TOKEN, ownerUserId: OWNER }, other: 'other-token' } });
  });
  after(() => server.close());

  it('a token from POST /services/identity/tokens identifies a Dispatch client: receivers see its user id', async () => {
    const { userToken, presumedRole } = await requestUserToken({ url: server.url, adminKey: ADMIN_KEY, projectId: PROJECT, userId: 'alice' });
    assert.equal(presumedRole, 'user');
    const sender = backend(server);
    const receiver = backend(server);
    try {
      await sender.connect({ shardName: 'integrated', authorization: userToken });
      await receiver.connect({ shardName: 'integrated' });
      const got: { userId: unknown; payload: unknown }[] = [];
      receiver.on('hello', (payload, metadata) => got.push({ userId: metadata.userId, payload }));
      await sender.emitEvent('hello', { n: 1 });
      await waitFor(() => got.length === 1, 'the event');
      assert.deepEqual(got[0], { userId: 'alice', payload: { n: 1 } });

      // identify() takes the same tokens; the owner's carries role admin on the services side.
      const owner = await requestUserToken({ url: server.url, adminKey: ADMIN_KEY, projectId: PROJECT, userId: OWNER });
      assert.equal(owner.presumedRole, 'admin');
      await receiver.identify(owner.userToken);
      assert.equal(receiver.session.userId, OWNER);
    } finally {
      await Promise.all([sender.disconnect(), receiver.disconnect()]);
    }
  });

  it('and the other way: tokens the server signs resolve through PlatformBackend.Identity; its own token identifies it', async () => {
    const identity = new PlatformBackend.Identity({ projectId: PROJECT, projectToken: TOKEN, url: server.url });
    const { token } = await server.issueUserToken(PROJECT, OWNER);
    assert.deepEqual(await identity.resolveUserFromToken(token), { id: OWNER, role: 'admin', attributes: {} });
    const own = await identity.getToken();
    const client = backend(server);
    try {
      await client.connect({ shardName: 'integrated-backend', authorization: own.token });
      assert.equal(client.session.userId, `backend:${PROJECT}`);
    } finally {
      await client.disconnect();
    }
    // Another project's token never identifies here.
    const foreign = await server.issueUserToken('other', 'mallory');
    await assert.rejects(identity.resolveUserFromToken(foreign.token), (error: { code?: unknown }) => error.code === 'INVALID_TOKEN');
  });

  it('serves the keystore, uploads and signed CDN URLs on the same port', async () => {
    const keystore = new Keystore(PROJECT, TOKEN, { url: server.url });
    const keyPath = await keystore.storeSecret('sk_test_value', 'apiKey');
    assert.equal(keyPath, `platform-keystore://${PROJECT}/apiKey`);
    assert.equal(await keystore.resolveValue(keyPath), 'sk_test_value');
    const bytes = new TextEncoder().encode('{"hello":"cdn"}');
    const uploaded = await keystore.upload('data/hello.json', bytes, 'application/json');
    assert.equal(uploaded.url, `${server.url}/cdn/${PROJECT}/data/hello.json`);
    const signed = await keystore.generateSignedUrl(uploaded.url);
    assert.ok(signed.startsWith(`${server.url}/cdn/signed/`), signed);
    const response = await fetch(signed);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), '{"hello":"cdn"}');
    // The permanent URL is not public; the VCC key is.
    assert.equal((await fetch(uploaded.url)).status, 401);
    const vcc = (await (await fetch(`${server.url}/services/vcc/public-key`)).json()) as { publicKey: string };
    assert.equal(vcc.publicKey, server.vccPublicKey);
    // The signaling routes are still there beside them.
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
    assert.equal((await fetch(`${server.url}/services/nope`)).status, 404);
  });
});

describe('closing the integrated server', () => {
  it('releases every handle: a process that used sockets, tokens, the keystore and the CDN exits on its own', { timeout: 30_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-lifecycle-'));
    try {
      const fixture = fileURLToPath(new URL('../fixtures/signaling/integrated-lifecycle.ts', import.meta.url));
      const child = spawn(process.execPath, ['--import', 'tsx', fixture, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve(-1);
        }, 20_000);
        child.once('exit', (exitCode) => {
          clearTimeout(timer);
          resolve(exitCode);
        });
      });
      assert.equal(code, 0, code === -1 ? `still running 20 s later: a handle stayed open\n${stdout}${stderr}` : stderr);
      assert.deepEqual(JSON.parse(stdout.trim()), { userId: 'alice', keyPath: 'platform-keystore://demo/name', body: 'hello' });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the platform-kit-server bin', () => {
  it('a --port that is not a port (abc, 99999, -1) is one line saying what a port is, exit 2, no stack', { timeout: 60_000 }, async () => {
    const bin = fileURLToPath(new URL('../../signaling/bin.ts', import.meta.url));
    for (const port of ['abc', '99999', '-1']) {
      const child = spawn(process.execPath, ['--import', 'tsx', bin, `--port=${port}`, '--project', 'demo:demo-token'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 2, output);
      assert.equal(output.trim(), `platform-kit-server: --port (or PORT) wants a whole number from 0 (any free port) to 65535, got "${port}"`);
    }
  });

  it('--help prints every option it takes (the comment at the top of bin.ts) and exits 0, from the sources and from dist/', { timeout: 60_000 }, async () => {
    const source = await readFile(fileURLToPath(new URL('../../signaling/bin.ts', import.meta.url)), 'utf8');
    // The options parseArgs knows: each one must be in the help, so a new option without a line fails here.
    const options = [...source.matchAll(/^\s+'?([a-z-]+)'?: \{ type: '(?:string|boolean)'/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
    assert.ok(options.length >= 30, `found ${options.length} options in bin.ts`);
    const runs = [['--import', 'tsx', fileURLToPath(new URL('../../signaling/bin.ts', import.meta.url)), '--help']];
    const built = fileURLToPath(new URL('../../dist/signaling/bin.js', import.meta.url));
    if (existsSync(built)) runs.push([built, '-h']);
    for (const args of runs) {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 0, `${args.join(' ')}: ${stderr}`);
      assert.equal(stderr, '');
      assert.match(stdout, /^platform-kit-server: runs the signaling server/);
      assert.doesNotMatch(stdout, /^ \*/m, 'the comment markers are gone');
      for (const option of options) assert.match(stdout, new RegExp(`--${option}\\b`), `--${option} is not in the help of ${args.join(' ')}`);
    }
  });

  it('takes the services options, prints its URL and stops on SIGTERM', { timeout: 30_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-bin-'));
    const bin = fileURLToPath(new URL('../../signaling/bin.ts', import.meta.url));
    const args = ['--import', 'tsx', bin, '--port', '0', '--host', '127.0.0.1', '--project', 'demo:demo-token', '--owner', 'demo:olivia'];
    args.push('--admin-key', 'bin-admin-key', '--data-dir', dataDir, '--cdn-url', 'https://cdn.example/cdn', '--allow-anonymous-tokens');
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = '';
        const timer = setTimeout(() => reject(new Error(`no URL within 20 s: ${text}`)), 20_000);
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const match = /^platform-kit signaling: (http:\/\/127\.0\.0\.1:\d+)$/m.exec(text);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      const owner = await requestUserToken({ url, adminKey: 'bin-admin-key', projectId: 'demo', userId: 'olivia' });
      assert.equal(owner.presumedRole, 'admin');
      const anonymous = await fetch(`${url}/services/identity/anonymous`, { method: 'POST', headers: { 'x-platform-project-id': 'demo' } });
      assert.equal(anonymous.status, 200);
      const keystore = new Keystore('demo', 'demo-token', { url });
      const uploaded = await keystore.upload('a.txt', new TextEncoder().encode('x'), 'text/plain');
      assert.equal(uploaded.url, 'https://cdn.example/cdn/demo/a.txt');
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
