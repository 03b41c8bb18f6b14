// VccMiddleware in real Express 5 and Express 4 apps over real HTTP: remix values and
// credentials from signed headers only, interleaved remixes kept apart,
// forged, unsigned, expired and misaddressed headers ignored, process.env untouched.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import express4 from 'express4';
import { signRemixContext, VCC_HEADER, ed25519KeyPair, type RemixContext } from '../../signaling/services/vcc-headers.js';
import { createVccMiddleware, type PlatformLocals } from '../../signaling/vcc-middleware.js';
import { makeTemplate, type TempTemplate } from './cli-support.js';
import { REMIX, sleep, startServices, TEMPLATE, type Harness } from './services-support.js';

const ENV = { PLATFORM_PROJECT_ID: TEMPLATE.id, PLATFORM_PROJECT_TOKEN: TEMPLATE.token } as const;

// The same suite on both majors the issue names: Express 4 is installed as the alias `express4`.
const EXPRESS_MAJORS = [
  ['Express 5', express],
  ['Express 4', express4 as unknown as typeof express],
] as const;

for (const [expressName, createApp] of EXPRESS_MAJORS) {
  describe(`VccMiddleware with ${expressName}`, () => {
    let services: Harness;
    let template: TempTemplate;
    let server: Server;
    let base = '';
    const seenHeaders: (string | undefined)[] = [];

    before(async () => {
      services = await startServices();
      template = await makeTemplate();
      await template.write('card.json', {
        card: { title: 'Hello', color: '#ff0000' },
        api: { key: 'platform-keystore://template/apiKey' },
        '@@editor': [
          {
            key: 'card',
            fields: [
              { key: 'title', type: 'text' },
              { key: 'color', type: 'color' },
            ],
          },
          { key: 'api', fields: [{ key: 'key', type: 'secret' }] },
        ],
      });
      const app = createApp();
      // The public key as a template backend gets it: from the services, as PLATFORM_VCC_PUBLIC_KEY would hold it.
      const { publicKey } = (await (await fetch(`${services.url}/services/vcc/public-key`)).json()) as { publicKey: string };
      app.use(createVccMiddleware({ root: template.root, env: ENV, publicKey }));
      app.get('/values', async (req, res) => {
        seenHeaders.push(req.headers[VCC_HEADER] as string | undefined);
        // Yield at random so requests of different remixes interleave inside the handler.
        await sleep(Math.random() * 20);
        const locals = res.locals as unknown as PlatformLocals;
        await sleep(Math.random() * 20);
        res.json({ platform: locals.platform, id: locals.PLATFORM_PROJECT_ID, token: locals.PLATFORM_PROJECT_TOKEN, remix: locals.PLATFORM_IS_REMIX });
      });
      await new Promise<void>((resolve) => {
        server = app.listen(0, '127.0.0.1', () => resolve());
      });
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await services.stop();
      await template.remove();
    });

    type Answer = { platform: Record<string, Record<string, unknown>>; id: string; token: string; remix: boolean };
    async function get(headers: Record<string, string> = {}): Promise<Answer> {
      const response = await fetch(`${base}/values`, { headers });
      assert.equal(response.status, 200);
      return (await response.json()) as Answer;
    }
    const remixContext = (n: number): RemixContext => ({
      templateProjectId: TEMPLATE.id,
      projectId: `${REMIX.id}-${n}`,
      projectToken: `token-of-remix-${n}`,
      values: { card: { title: `Remix ${n}` }, api: { key: `platform-keystore://remix-${n}/apiKey` } },
    });

    it("without a header: the template's built values and its own credentials", async () => {
      const answer = await get();
      assert.deepEqual(answer.platform['card'], { title: 'Hello', color: '#ff0000' });
      assert.equal(answer.platform['metadata']?.['projectId'], TEMPLATE.id);
      assert.equal(answer.id, TEMPLATE.id);
      assert.equal(answer.token, TEMPLATE.token);
      assert.equal(answer.remix, false);
    });

    it("with the platform's signed header: the remix's values over the template's, and the remix's credentials", async () => {
      const answer = await get(services.server.router.signRemixHeaders(remixContext(1)));
      assert.deepEqual(answer.platform['card'], { title: 'Remix 1', color: '#ff0000' });
      assert.equal(answer.platform['api']?.['key'], 'platform-keystore://remix-1/apiKey');
      assert.equal(answer.platform['metadata']?.['projectId'], 'remix-1-1');
      assert.equal(answer.id, 'remix-1-1');
      assert.equal(answer.token, 'token-of-remix-1');
      assert.equal(answer.remix, true);
      // The header is gone before application code runs: it cannot be logged by accident.
      assert.equal(seenHeaders.at(-1), undefined);
    });

    it('keeps interleaved remixes apart and never writes process.env', async () => {
      const envBefore = JSON.stringify(Object.entries(process.env).filter(([name]) => name.startsWith('PLATFORM_')));
      const requests = Array.from({ length: 60 }, (_, index) => {
        const n = index % 3;
        return get(n === 0 ? {} : services.server.router.signRemixHeaders(remixContext(n))).then((answer) => ({ n, answer }));
      });
      for (const { n, answer } of await Promise.all(requests)) {
        if (n === 0) {
          assert.equal(answer.id, TEMPLATE.id);
          assert.equal(answer.platform['card']?.['title'], 'Hello');
        } else {
          assert.equal(answer.id, `remix-1-${n}`);
          assert.equal(answer.token, `token-of-remix-${n}`);
          assert.equal(answer.platform['card']?.['title'], `Remix ${n}`);
        }
      }
      assert.equal(JSON.stringify(Object.entries(process.env).filter(([name]) => name.startsWith('PLATFORM_'))), envBefore);
      // Nor the template's files: the build it made went to a temporary folder, and no platform-env.d.ts appeared.
      assert.deepEqual((await readdir(template.root)).filter((name) => name !== 'package.json').sort(), ['.platform']);
    });

    it('ignores forged, unsigned, tampered, expired and misaddressed headers', async () => {
      const context = remixContext(7);
      const impostorKey = ed25519KeyPair(Buffer.alloc(32, 7)).privateKey;
      const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
      const genuine = services.server.router.signRemixHeaders(context)[VCC_HEADER];
      const [version, payload, signature] = genuine.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      const rewritten = Buffer.from(JSON.stringify({ ...claims, pid: 'victim' })).toString('base64url');
      const headers = [
        signRemixContext(context, impostorKey),
        signRemixContext(context, rsa),
        `${version}.${payload}.`,
        `${version}.${payload}`,
        Buffer.from(JSON.stringify(claims)).toString('base64url'),
        `${version}.${rewritten}.${signature}`,
        services.server.router.signRemixHeaders(context, { ttlSeconds: -1 })[VCC_HEADER],
        services.server.router.signRemixHeaders({ ...context, templateProjectId: 'another-template' })[VCC_HEADER],
        'v1.e30.AAAA',
        '',
      ];
      for (const header of headers) {
        const answer = await get({ [VCC_HEADER]: header });
        assert.equal(answer.remix, false, header);
        assert.equal(answer.id, TEMPLATE.id);
        assert.equal(answer.token, TEMPLATE.token);
        assert.equal(answer.platform['card']?.['title'], 'Hello');
      }
    });

    it('works without a configured key (remix headers are then ignored)', async () => {
      const middleware = createVccMiddleware({ customization: { version: 1, values: { card: { title: 'Built' } }, editor: [] }, env: ENV });
      const app = createApp();
      app.use(middleware);
      app.get('/', (_req, res) => res.json(res.locals));
      const plain = await new Promise<Server>((resolve) => {
        const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
      });
      try {
        const port = (plain.address() as AddressInfo).port;
        const response = await fetch(`http://127.0.0.1:${port}/`, { headers: services.server.router.signRemixHeaders(remixContext(2)) });
        const locals = (await response.json()) as PlatformLocals;
        assert.equal(locals.PLATFORM_PROJECT_ID, TEMPLATE.id);
        assert.deepEqual(locals.platform['card'], { title: 'Built' });
      } finally {
        plain.closeAllConnections();
        await new Promise((resolve) => plain.close(resolve));
      }
    });
  });
}
