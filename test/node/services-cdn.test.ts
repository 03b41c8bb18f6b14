// The project CDN over real HTTP: uploads (limits, types, traversal), signed
// URLs (valid, tampered, expired, query parameters, Range), permanent URLs.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, open, readdir, readlink, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Keystore } from '../../signaling/keystore.js';
import { codeOfRejection, post, projectHeaders, raw, REMIX, startServices, TEMPLATE, type Harness } from './services-support.js';

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(300)]);
const VIDEO = randomBytes(64 * 1024);

describe('project CDN and signed URLs', () => {
  let services: Harness;
  let keystore: Keystore;
  let clock = Date.now();
  before(async () => {
    services = await startServices({
      now: () => clock,
      limits: { maxUploadBytes: 100 * 1024 },
      // Stands in for an image service: the signed URL's query reaches it.
      transform: async ({ body, query, contentType }) => {
        const bytes = query.get('bytes');
        return bytes === null ? undefined : { body: body.subarray(0, Number(bytes)), contentType };
      },
    });
    keystore = new Keystore(TEMPLATE.id, TEMPLATE.token, { url: services.url });
  });
  after(() => services.stop());

  const cdn = () => `${services.url}/cdn`;

  it('stores an upload under the project and returns its permanent URL', async () => {
    const uploaded = await keystore.upload('images/logo.png', PNG, 'image/png');
    assert.equal(uploaded.url, `${cdn()}/${TEMPLATE.id}/images/logo.png`);
    assert.equal(uploaded.size, PNG.length);
    assert.equal((await stat(join(services.dataDir, 'cdn', TEMPLATE.id, 'images', 'logo.png'))).size, PNG.length);
    await keystore.upload('media/intro.mp4', VIDEO, 'video/mp4');
  });

  it('serves a signed URL; the default validity is 5 minutes, 1 hour for a video', async () => {
    const url = await keystore.generateSignedUrl(`${cdn()}/${TEMPLATE.id}/images/logo.png`);
    assert.match(url, new RegExp(`^${cdn()}/signed/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
    const response = await fetch(url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/png');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), PNG);

    const image = await post(`${services.url}/services/keystore/sign`, projectHeaders(TEMPLATE), { resource: `${cdn()}/${TEMPLATE.id}/images/logo.png` });
    const video = await post(`${services.url}/services/keystore/sign`, projectHeaders(TEMPLATE), { resource: `${cdn()}/${TEMPLATE.id}/media/intro.mp4` });
    const nowSeconds = Math.floor(clock / 1000) * 1000;
    assert.equal(Number(image.body['expiresAt']) - nowSeconds, 300_000);
    assert.equal(Number(video.body['expiresAt']) - nowSeconds, 3_600_000);
    const custom = await post(`${services.url}/services/keystore/sign`, projectHeaders(TEMPLATE), { resource: `${cdn()}/${TEMPLATE.id}/images/logo.png`, expirySeconds: 30 });
    assert.equal(Number(custom.body['expiresAt']) - nowSeconds, 30_000);
  });

  it('passes query parameters added to the signed URL on to the resource', async () => {
    const url = await keystore.generateSignedUrl(`${cdn()}/${TEMPLATE.id}/images/logo.png`);
    const response = await fetch(`${url}?bytes=8`);
    assert.equal(response.status, 200);
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), PNG.subarray(0, 8));
  });

  it('answers 403 to a tampered token', async () => {
    const url = await keystore.generateSignedUrl(`${cdn()}/${TEMPLATE.id}/images/logo.png`);
    const token = url.slice(url.lastIndexOf('/') + 1);
    const [payload, mac] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const tampered = [
      `${Buffer.from(JSON.stringify({ ...claims, e: Number(claims['e']) + 86_400 })).toString('base64url')}.${mac}`,
      `${Buffer.from(JSON.stringify({ ...claims, r: 'media/intro.mp4' })).toString('base64url')}.${mac}`,
      `${Buffer.from(JSON.stringify({ ...claims, p: REMIX.id })).toString('base64url')}.${mac}`,
      `${payload}.${mac.slice(0, -2)}AA`,
      payload,
    ];
    for (const bad of tampered) {
      const response = await fetch(`${cdn()}/signed/${bad}`);
      assert.equal(response.status, 403, bad);
      assert.doesNotMatch(await response.text(), /expired/);
    }
  });

  it('answers 403 with a body that says so once expired', async () => {
    const url = await keystore.generateSignedUrl(`${cdn()}/${TEMPLATE.id}/images/logo.png`, 60);
    assert.equal((await fetch(url)).status, 200);
    clock += 61_000;
    const response = await fetch(url);
    assert.equal(response.status, 403);
    const body = (await response.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'TOKEN_EXPIRED');
    assert.match(body.error.message, /signed URL expired at/);
  });

  it('supports Range requests for video', async () => {
    const url = await keystore.generateSignedUrl(`${cdn()}/${TEMPLATE.id}/media/intro.mp4`);
    const part = await fetch(url, { headers: { range: 'bytes=100-1099' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 100-1099/${VIDEO.length}`);
    assert.equal(part.headers.get('accept-ranges'), 'bytes');
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), VIDEO.subarray(100, 1100));
    const tail = await fetch(url, { headers: { range: 'bytes=-10' } });
    assert.deepEqual(Buffer.from(await tail.arrayBuffer()), VIDEO.subarray(-10));
    const open = await fetch(url, { headers: { range: `bytes=${VIDEO.length - 5}-` } });
    assert.deepEqual(Buffer.from(await open.arrayBuffer()), VIDEO.subarray(-5));
    const beyond = await fetch(url, { headers: { range: `bytes=${VIDEO.length}-` } });
    assert.equal(beyond.status, 416);
    assert.equal(beyond.headers.get('content-range'), `bytes */${VIDEO.length}`);
  });

  it('refuses to sign what is not on the project CDN', async () => {
    assert.equal(await codeOfRejection(keystore.generateSignedUrl('https://elsewhere.example/x.png')), 'FORBIDDEN');
    assert.equal(await codeOfRejection(keystore.generateSignedUrl(`${cdn()}/${REMIX.id}/images/logo.png`)), 'FORBIDDEN');
    assert.equal(await codeOfRejection(keystore.generateSignedUrl(`${cdn()}/${TEMPLATE.id}/../${REMIX.id}/x.png`)), 'INVALID_ARGUMENT');
    assert.equal(await codeOfRejection(keystore.generateSignedUrl(`${cdn()}/${TEMPLATE.id}/images/logo.png?w=10`)), 'INVALID_ARGUMENT');
    assert.equal(await codeOfRejection(keystore.generateSignedUrl(`${cdn()}/${TEMPLATE.id}/images/logo.png`, 0)), 'INVALID_ARGUMENT');
  });

  it('serves the permanent URL only with the project credentials', async () => {
    const url = `${cdn()}/${TEMPLATE.id}/images/logo.png`;
    assert.equal((await fetch(url)).status, 401);
    assert.equal((await fetch(url, { headers: projectHeaders(REMIX) })).status, 403);
    const own = await fetch(url, { headers: projectHeaders(TEMPLATE) });
    assert.equal(own.status, 200);
    assert.deepEqual(Buffer.from(await own.arrayBuffer()), PNG);
  });

  it('refuses uploads over the size limit, declared or streamed', async () => {
    const big = randomBytes(100 * 1024 + 1);
    assert.equal(await codeOfRejection(keystore.upload('big.png', big, 'image/png')), 'PAYLOAD_TOO_LARGE');
    // No Content-Length: the limit is enforced while streaming.
    const chunks = Array.from({ length: 30 }, () => randomBytes(4096));
    const streamed = await raw(services.url, {
      method: 'PUT',
      path: '/services/cdn/streamed.png',
      headers: { ...projectHeaders(TEMPLATE), 'content-type': 'image/png', 'transfer-encoding': 'chunked' },
      body: chunks,
    });
    assert.equal(streamed.status, 413);
    const left = await readdir(join(services.dataDir, 'cdn', TEMPLATE.id));
    assert.deepEqual(
      left.filter((name) => name.startsWith('big') || name.startsWith('streamed')),
      [],
    );
  });

  it('refuses content types off the allow-list and extensions that do not match', async () => {
    assert.equal(await codeOfRejection(keystore.upload('page.html', Buffer.from('<script>alert(1)</script>'), 'text/html')), 'UNSUPPORTED');
    assert.equal(await codeOfRejection(keystore.upload('icon.svg', Buffer.from('<svg/>'), 'image/svg+xml')), 'UNSUPPORTED');
    assert.equal(await codeOfRejection(keystore.upload('script.png', Buffer.from('alert(1)'), 'text/plain')), 'INVALID_ARGUMENT');
    assert.equal(await codeOfRejection(keystore.upload('noext', PNG, 'image/png')), 'INVALID_ARGUMENT');
  });

  it('refuses path traversal in every spelling, and writes nothing outside the project', async () => {
    const attempts = [
      '/services/cdn/../escape.png',
      '/services/cdn/a/../../escape.png',
      '/services/cdn/%2e%2e/escape.png',
      '/services/cdn/%2E%2E%2Fescape.png',
      '/services/cdn/..%2fescape.png',
      '/services/cdn/..%5cescape.png',
      '/services/cdn/..\\escape.png',
      '/services/cdn/.hidden.png',
      '/services/cdn/a//b.png',
      '/services/cdn/a/%00.png',
      `/services/cdn/${'a/'.repeat(9)}deep.png`,
      '/services/cdn/',
    ];
    for (const path of attempts) {
      const answer = await raw(services.url, {
        method: 'PUT',
        path,
        headers: { ...projectHeaders(TEMPLATE), 'content-type': 'image/png', 'content-length': PNG.length },
        body: PNG,
      });
      assert.equal(answer.status, 400, `${path} → ${answer.status} ${answer.body.toString()}`);
    }
    assert.deepEqual((await readdir(join(services.dataDir, 'cdn'))).sort(), [TEMPLATE.id]);
    assert.deepEqual(
      (await readdir(services.dataDir)).filter((name) => name.includes('escape')),
      [],
    );
    // And on the serving side.
    for (const path of ['/cdn/template/../remix-1/x.png', '/cdn/signed/..%2f..%2fserver.key', `/cdn/${TEMPLATE.id}/%2e%2e/%2e%2e/server.key`]) {
      const answer = await raw(services.url, { path, headers: projectHeaders(TEMPLATE) });
      assert.ok(answer.status === 400 || answer.status === 403, `${path} → ${answer.status}`);
    }
  });

  it('answers an upload without credentials 401, and the remix cannot write into the template', async () => {
    const anonymous = await raw(services.url, { method: 'PUT', path: '/services/cdn/x.png', headers: { 'content-type': 'image/png' }, body: PNG });
    assert.equal(anonymous.status, 401);
    const remix = new Keystore(REMIX.id, REMIX.token, { url: services.url });
    const stored = await remix.upload('images/logo.png', Buffer.from('89504e470d0a1a0a', 'hex'), 'image/png');
    assert.equal(stored.url, `${cdn()}/${REMIX.id}/images/logo.png`);
    const template = await fetch(`${cdn()}/${TEMPLATE.id}/images/logo.png`, { headers: projectHeaders(TEMPLATE) });
    assert.deepEqual(Buffer.from(await template.arrayBuffer()), PNG);
  });
});

describe('project CDN: collisions, durability and leftovers', () => {
  let services: Harness;
  let keystore: Keystore;
  before(async () => {
    services = await startServices();
    keystore = new Keystore(TEMPLATE.id, TEMPLATE.token, { url: services.url });
  });
  after(() => services.stop());

  const put = (path: string, body: Buffer = PNG) =>
    raw(services.url, { method: 'PUT', path: `/services/cdn/${path}`, headers: { ...projectHeaders(TEMPLATE), 'content-type': 'image/png', 'content-length': body.length }, body });
  const errorOf = (body: Buffer): { code?: unknown; message?: unknown } => (JSON.parse(body.toString('utf8')) as { error: { code?: unknown; message?: unknown } }).error;

  it('answers 409 INVALID_PATH, as JSON, for an upload onto a directory or under a file', async () => {
    assert.equal((await put('shelf.png/item.png')).status, 201);
    assert.equal((await put('single.png')).status, 201);
    for (const path of ['shelf.png', 'single.png/under.png', 'single.png/deeper/under.png']) {
      const answer = await put(path);
      assert.equal(answer.status, 409, `${path} → ${answer.status} ${answer.body.toString()}`);
      assert.match(String(answer.headers['content-type']), /^application\/json/);
      const error = errorOf(answer.body);
      assert.equal(error.code, 'INVALID_PATH', path);
      assert.doesNotMatch(String(error.message), /\n\s+at /, 'no stack in the answer');
    }
    // Nothing half-written is left next to them, and both stored files are intact.
    const left = await readdir(join(services.dataDir, 'cdn', TEMPLATE.id), { recursive: true });
    assert.deepEqual(
      left.filter((name) => name.endsWith('.tmp')),
      [],
    );
    assert.equal((await stat(join(services.dataDir, 'cdn', TEMPLATE.id, 'single.png'))).size, PNG.length);
    // The server still takes ordinary uploads.
    assert.equal((await keystore.upload('after/ok.png', PNG, 'image/png')).size, PNG.length);
  });

  it('fsyncs the file and its directory before it acknowledges the upload', async (t) => {
    // Every fsync of the process, by the path its descriptor points at (Linux: /proc/self/fd).
    const probe = await open(join(services.dataDir, 'server.key'), 'r');
    const fileHandle = Object.getPrototypeOf(probe) as { sync(this: { fd: number }): Promise<void> };
    await probe.close();
    const synced: string[] = [];
    const original = fileHandle.sync;
    fileHandle.sync = async function (this: { fd: number }) {
      synced.push(await readlink(`/proc/self/fd/${this.fd}`));
      return original.call(this);
    };
    t.after(() => {
      fileHandle.sync = original;
    });
    const projectDir = join(services.dataDir, 'cdn', TEMPLATE.id);
    const answer = await put('durable/new/file.png');
    assert.equal(answer.status, 201);
    // Recorded before the answer arrived: the syncs happen before the acknowledgement.
    const cdnSyncs = synced.filter((path) => path.startsWith(projectDir));
    const fileSync = cdnSyncs.findIndex((path) => /\/durable\/new\/file\.png\.[0-9a-f]{12}\.tmp$/.test(path));
    assert.ok(fileSync >= 0, `the file's bytes were synced: ${JSON.stringify(synced)}`);
    const directorySync = cdnSyncs.indexOf(join(projectDir, 'durable', 'new'));
    assert.ok(directorySync > fileSync, `its directory was synced after it: ${JSON.stringify(cdnSyncs)}`);
    // The directories the upload created are in their parents too.
    assert.ok(cdnSyncs.includes(join(projectDir, 'durable')), JSON.stringify(cdnSyncs));
    assert.ok(cdnSyncs.includes(projectDir), JSON.stringify(cdnSyncs));
  });

  it('removes the .tmp files a killed writer left when the CDN store opens, and nothing else', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'platform-cdn-leftovers-'));
    const projectDir = join(dataDir, 'cdn', TEMPLATE.id);
    await mkdir(join(projectDir, 'images', 'deep'), { recursive: true });
    const leftovers = [join(projectDir, 'a.png.0123456789ab.tmp'), join(projectDir, 'images', 'deep', 'b.png.ba9876543210.tmp')];
    const kept = [join(projectDir, 'keep.png'), join(projectDir, 'images', 'keep.txt')];
    for (const file of [...leftovers, ...kept]) await writeFile(file, 'x');
    const restarted = await startServices({}, dataDir);
    try {
      for (const file of leftovers)
        assert.equal(
          await stat(file).then(
            () => 'present',
            () => 'gone',
          ),
          'gone',
          file,
        );
      for (const file of kept)
        assert.equal(
          await stat(file).then(
            () => 'present',
            () => 'gone',
          ),
          'present',
          file,
        );
    } finally {
      await restarted.stop();
    }
  });
});
