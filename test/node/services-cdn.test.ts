// The project CDN over real HTTP: uploads (limits, types, traversal), signed
// URLs (valid, tampered, expired, query parameters, Range), permanent URLs.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
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
    assert.deepEqual(left.filter((name) => name.startsWith('big') || name.startsWith('streamed')), []);
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
    assert.deepEqual((await readdir(services.dataDir)).filter((name) => name.includes('escape')), []);
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
