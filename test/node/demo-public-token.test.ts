// The demo's project token is in the repository, so the public port answers a request carrying it
// only from this machine (demo/lib/public-token-guard.ts): from another address, writing a CDN file
// with it is refused 403 FORBIDDEN, as is every other services route; from loopback it works as before.
// The same holds for a backend's join on the control socket (the signaling server's
// backendJoinsFromLoopbackOnly, through the demo's forwarder, which appends the client's address).
// "Another machine" is this machine's own network address (a connection to it has it as its source,
// not 127.0.0.1), so the test needs a non-loopback IPv4 interface; every CI machine has one.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEMO_PROJECT_ID, DEMO_PROJECT_TOKEN } from '../../demo/catalog.js';
import { startDemo, type DemoServer } from '../../demo/server.js';
import { Raw } from './signaling-support.js';

function networkAddress(): string {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  }
  throw new Error('this test needs a non-loopback IPv4 interface (none found by os.networkInterfaces())');
}

describe('demo: the public project token answers this machine only', () => {
  let demo: DemoServer;
  let dataDir: string;
  let port: string;
  const afar = networkAddress();

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'platform-demo-token-'));
    demo = await startDemo({ port: 0, host: '0.0.0.0', dataDir, logLevel: 'silent' });
    port = new URL(demo.url).port;
  });
  after(async () => {
    await demo?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const put = (host: string, token: string | undefined): Promise<Response> =>
    fetch(`http://${host}:${port}/services/cdn/uploads/probe.txt`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain', 'x-platform-project-id': DEMO_PROJECT_ID, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body: 'written with the public token',
    });

  it('refuses a CDN write with the project token from another address, with a code', async () => {
    const response = await put(afar, DEMO_PROJECT_TOKEN);
    assert.equal(response.status, 403);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'FORBIDDEN');
  });

  it('refuses the keystore with the project token from another address', async () => {
    const response = await fetch(`http://${afar}:${port}/services/secrets/anything`, {
      headers: { 'x-platform-project-id': DEMO_PROJECT_ID, authorization: `Bearer ${DEMO_PROJECT_TOKEN}` },
    });
    assert.equal(response.status, 403);
  });

  it('forwards the same write from this machine, and other requests from afar', async () => {
    const local = await put('127.0.0.1', DEMO_PROJECT_TOKEN);
    assert.ok(local.ok, `loopback write answered ${local.status}: ${await local.text()}`);
    const health = await fetch(`http://${afar}:${port}/health`);
    assert.equal(health.status, 200);
    // Without the token the services answer for themselves (their own 401), not the guard.
    const anonymous = await put(afar, undefined);
    assert.equal(anonymous.status, 401);
  });

  it('refuses a backend join with the project token on the control socket from another address (FORBIDDEN), also with a forged X-Forwarded-For; joins it from this machine', async () => {
    const backendJoin = { projectId: DEMO_PROJECT_ID, kind: 'backend', projectToken: DEMO_PROJECT_TOKEN, shardName: 'token-probe' };
    const sockets: Raw[] = [];
    try {
      const fromAfar = new Raw(`http://${afar}:${port}`);
      sockets.push(fromAfar);
      const refused = await fromAfar.join(backendJoin);
      assert.equal((refused['error'] as { code?: string } | undefined)?.code, 'FORBIDDEN', JSON.stringify(refused));

      const forged = new Raw(`http://${afar}:${port}`, [], { headers: { 'x-forwarded-for': '127.0.0.1' } });
      sockets.push(forged);
      const alsoRefused = await forged.join(backendJoin);
      assert.equal((alsoRefused['error'] as { code?: string } | undefined)?.code, 'FORBIDDEN', JSON.stringify(alsoRefused));

      const local = new Raw(`http://127.0.0.1:${port}`);
      sockets.push(local);
      const joined = await local.join(backendJoin);
      assert.equal(joined.type, 'joined', JSON.stringify(joined));
    } finally {
      for (const socket of sockets) socket.close();
    }
  });
});
