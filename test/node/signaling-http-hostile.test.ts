// The signaling server's own HTTP routes and its services under hostile requests a browser or
// fetch() would never send: request targets that are not URLs, failures that must not leak, and
// clients that hang up halfway. A real createSignalingServer on loopback, raw TCP where needed.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Keystore } from '../../signaling/keystore.js';
import type { SecretStore } from '../../signaling/services/secret-store.js';
import { createMemoryStore } from '../../signaling/store/memory-store.js';
import { rawUpgrade } from './hostile-support.js';
import { PROJECT, sleep, startServer, TOKEN, waitFor } from './signaling-support.js';
import type { SignalingServer } from '../../signaling/index.js';

/** Writes `request` on a fresh TCP connection; resolves what came back within `timeoutMs`, or when the server closed. */
function rawHttp(url: string, request: string, timeoutMs = 2_000): Promise<string> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(target.port), target.hostname);
    let answer = '';
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      // One answer is all these tests read.
      if (/\r\n\r\n/.test(answer) && (/\r\n0\r\n\r\n$/.test(answer) || /content-length: \d+/i.test(answer))) setTimeout(done, 20);
    });
    socket.on('error', () => undefined);
    socket.on('close', done);
    socket.write(request);
  });
}

const AUTH = `x-platform-project-id: ${PROJECT}\r\nauthorization: Bearer ${TOKEN}\r\n`;

describe('hostile HTTP: request targets that are not URLs', () => {
  let server: SignalingServer;
  const logged: string[] = [];
  before(async () => {
    server = await startServer({ log: (line) => logged.push(line) });
  });
  after(() => server.close());

  for (const target of ['http://[::1', 'http://x:99999/health']) {
    it(`GET ${target} is answered 400 INVALID_ARGUMENT as JSON, not 500, and no route failure is logged`, async () => {
      const before = logged.length;
      const answer = await rawHttp(server.url, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 400 /, answer);
      assert.match(answer, /"code":"INVALID_ARGUMENT"/);
      assert.deepEqual(logged.slice(before), []);
    });
  }

  it('an upgrade to a target that is not a URL is answered 400, not dropped without a word', async () => {
    const upgrade = await rawUpgrade(server.url, 'http://[::1');
    upgrade.socket.destroy();
    assert.match(upgrade.status, /^HTTP\/1\.1 400 /, JSON.stringify(upgrade.head));
  });
});

describe("hostile HTTP: a failure of the server's own routes", () => {
  let server: SignalingServer;
  const logged: string[] = [];
  before(async () => {
    const store = createMemoryStore();
    // A store whose failure carries what a client must never read (a Redis URL with its password).
    const failing = Object.assign(Object.create(store) as typeof store, {
      shards: () => Promise.reject(new Error('connect ECONNREFUSED redis://:hunter2@10.0.0.5:6379')),
    });
    server = await startServer({ store: failing, log: (line) => logged.push(line) });
  });
  after(() => server.close());

  it('answers 500 INTERNAL without the error message, and logs it', async () => {
    const answer = await rawHttp(server.url, `GET /info HTTP/1.1\r\nHost: x\r\n${AUTH}Connection: close\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 500 /, answer);
    assert.match(answer, /"code":"INTERNAL"/);
    assert.doesNotMatch(answer, /hunter2|ECONNREFUSED|10\.0\.0\.5/);
    assert.ok(
      logged.some((line) => line.includes('ECONNREFUSED')),
      'the failure is logged for the operator',
    );
  });
});

describe('hostile HTTP: clients of the services that hang up halfway', () => {
  let server: SignalingServer;
  const logged: string[] = [];
  const printed: string[] = [];
  const consoleError = console.error;
  // A secret store that fails the way a disk does, naming a path the client must not read.
  const failingSecrets: SecretStore = {
    get: () => Promise.resolve(undefined),
    put: () => Promise.reject(new Error('ENOSPC: no space left on device, write /var/lib/platform/secrets.json')),
    delete: () => Promise.resolve(false),
    close: () => Promise.resolve(),
  };
  before(async () => {
    server = await startServer({ log: (line) => logged.push(line), secretStore: failingSecrets });
    console.error = (...args: unknown[]) => void printed.push(args.map(String).join(' '));
  });
  after(async () => {
    console.error = consoleError;
    await server.close();
  });

  it('a download of a signed URL dropped halfway, and a JSON body cut off, are not logged as failures of the server', async () => {
    const keystore = new Keystore(PROJECT, TOKEN, { url: server.url });
    const file = await keystore.upload('big.txt', Buffer.alloc(4 * 1024 * 1024, 'a'), 'text/plain');
    // Public: whoever holds the link can start downloads and drop them, as often as they like.
    const signed = new URL(await keystore.generateSignedUrl(file.url));
    for (let i = 0; i < 3; i++) {
      await rawHttp(server.url, `GET ${signed.pathname} HTTP/1.1\r\nHost: x\r\n\r\n`, 20);
    }
    await rawHttp(server.url, `POST /services/keystore/secrets HTTP/1.1\r\nHost: x\r\n${AUTH}content-type: application/json\r\ncontent-length: 100\r\n\r\n{"value":`, 50);
    await sleep(200);
    assert.deepEqual(printed, []);
    assert.deepEqual(logged, []);
  });

  it("a failure of a service goes to the server's log option, not to console.error, and its message is not answered", async () => {
    const keystore = new Keystore(PROJECT, TOKEN, { url: server.url });
    const answer = await keystore.storeSecret('v').then(
      () => 'stored',
      (thrown: unknown) => {
        const error = thrown as { code?: string; message?: string };
        return `${String(error.code)} ${String(error.message)}`;
      },
    );
    assert.match(answer, /^INTERNAL /);
    assert.doesNotMatch(answer, /ENOSPC|\/var\/lib/);
    await waitFor(() => logged.some((line) => line.includes('ENOSPC')), 'the failure in the log');
    assert.deepEqual(printed, []);
  });
});
