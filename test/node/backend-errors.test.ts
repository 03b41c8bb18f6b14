// A template's backend as docs/templates.md writes it (issue 17): Express with VccMiddleware, a route
// that resolves the viewer from a user token, and platformErrorHandler() last. Against real
// platform services over HTTP. A missing or forged token answers JSON with a code, never the
// framework's HTML page with a stack; an unexpected error answers 500 without its details.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import express4 from 'express4';
import { PlatformBackend, platformErrorHandler, requestUserToken, VccMiddleware } from '../../signaling/index.js';
import { makeTemplate, type TempTemplate } from './cli-support.js';
import { ADMIN_KEY, startServices, TEMPLATE, type Harness } from './services-support.js';

const EXPRESS_MAJORS = [
  ['Express 5', express],
  ['Express 4', express4 as unknown as typeof express],
] as const;

for (const [expressName, createApp] of EXPRESS_MAJORS) {
  describe(`a template backend's errors with ${expressName}`, () => {
    let services: Harness;
    let template: TempTemplate;
    let server: Server;
    let base = '';
    const logged: unknown[] = [];

    before(async () => {
      services = await startServices();
      template = await makeTemplate();
      await template.write('card.json', { card: { title: 'Hello' }, '@@editor': [{ key: 'card', fields: [{ key: 'title', type: 'text' }] }] });
      const env = { PLATFORM_PROJECT_ID: TEMPLATE.id, PLATFORM_PROJECT_TOKEN: TEMPLATE.token, PLATFORM_SERVICES_URL: services.url };
      const app = createApp();
      app.use(VccMiddleware.create({ root: template.root, env }));
      app.get('/api/me', (req, res, next) => {
        // Express 4 does not catch a rejected promise itself: hand it to next(), which works on both.
        new PlatformBackend.Identity({ res, url: services.url })
          .resolveUserFromToken(req.get('x-user-token') ?? '')
          .then((user) => res.json({ title: (res.locals['platform'] as { card: { title: string } }).card.title, user: user.id }), next);
      });
      app.post('/api/echo', createApp.json({ limit: '1kb' }), (req, res) => res.json(req.body));
      app.get('/api/broken', () => {
        throw new Error('a secret detail of the server');
      });
      app.use(platformErrorHandler({ log: (_message, error) => logged.push(error) }));
      server = app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    after(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.stop();
      await template.remove();
    });

    it('a valid user token resolves to the viewer', async () => {
      const { userToken } = await requestUserToken({ adminKey: ADMIN_KEY, projectId: TEMPLATE.id, userId: 'carol', url: services.url });
      const response = await fetch(`${base}/api/me`, { headers: { 'x-user-token': userToken } });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { title: 'Hello', user: 'carol' });
    });

    for (const [what, headers] of [
      ['a missing token', {}],
      ['a forged token', { 'x-user-token': 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.forged' }],
    ] as const) {
      it(`${what} answers 401 JSON with a code, not an HTML stack`, async () => {
        const response = await fetch(`${base}/api/me`, { headers });
        assert.equal(response.status, 401);
        assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
        const body = (await response.json()) as { error: { code: string; message: string; name: string } };
        assert.ok(['INVALID_TOKEN', 'UNAUTHORIZED', 'TOKEN_EXPIRED'].includes(body.error.code), body.error.code);
        assert.equal(body.error.name, 'PlatformError');
        assert.doesNotMatch(body.error.message, /\n\s+at /);
      });
    }

    for (const [what, init, status, code] of [
      ['a body that is not JSON', { body: '{"a":', headers: { 'content-type': 'application/json' } }, 400, 'INVALID_ARGUMENT'],
      ['a body over the parser limit', { body: JSON.stringify({ a: 'x'.repeat(4096) }), headers: { 'content-type': 'application/json' } }, 413, 'PAYLOAD_TOO_LARGE'],
      ['a body in a charset the parser refuses', { body: '{}', headers: { 'content-type': 'application/json; charset=klingon' } }, 415, 'UNSUPPORTED'],
    ] as const) {
      it(`${what} (the framework's own client error) answers ${status} ${code}, not 500, and is not logged as a failure`, async () => {
        const before = logged.length;
        const response = await fetch(`${base}/api/echo`, { method: 'POST', ...init });
        const text = await response.text();
        assert.equal(response.status, status, text);
        assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, code);
        assert.doesNotMatch(text, /\n\s+at /);
        assert.equal(logged.length, before);
      });
    }

    it('an unexpected error answers 500 INTERNAL without its details, and is logged', async () => {
      const before = logged.length;
      const response = await fetch(`${base}/api/broken`);
      assert.equal(response.status, 500);
      const text = await response.text();
      assert.doesNotMatch(text, /secret detail|\n\s+at /);
      assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'INTERNAL');
      assert.equal(logged.length, before + 1);
    });
  });
}
