// A backend of a template written for the original SDK (issue 24), in a real Express 5 app over
// real HTTP: VccMiddleware serves the template's values that do not fit their types as the files
// hold them (with one warning each, at the first request), never dropping the file; the compat
// entry's VccMiddleware (platform-kit/compat/vcc-backend) also sets res.locals.koji.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { createOriginalVccMiddleware, VccMiddleware as OriginalVccMiddleware } from '../../signaling/compat/vcc-backend.js';
import { createVccMiddleware, type NodeMiddleware, type PlatformLocals } from '../../signaling/vcc-middleware.js';
import { makeTemplate, type TempTemplate } from './cli-support.js';

const ENV = { PLATFORM_PROJECT_ID: 'original-template', PLATFORM_PROJECT_TOKEN: 'its-token' } as const;

/** An Express app with `middleware` first and a route that answers `res.locals`. */
async function serve(middleware: NodeMiddleware): Promise<{ server: Server; get(): Promise<Record<string, unknown>> }> {
  const app = express();
  app.use(middleware);
  app.get('/locals', (_req, res) => {
    const locals = res.locals as Record<string, unknown>;
    res.json({ platform: locals['platform'], koji: locals['koji'] ?? null, id: (locals as unknown as PlatformLocals).PLATFORM_PROJECT_ID });
  });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    async get() {
      const response = await fetch(`${base}/locals`);
      assert.equal(response.status, 200);
      return (await response.json()) as Record<string, unknown>;
    },
  };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('VccMiddleware and values that do not fit their types (issue 24)', () => {
  let template: TempTemplate;
  before(async () => {
    template = await makeTemplate('original-values');
  });
  after(() => template.remove());

  it('serves every file, odd values as the file holds them (an unsafe URL as ""), and says each once', async () => {
    const lines: string[] = [];
    const { server, get } = await serve(createVccMiddleware({ root: template.root, env: ENV, log: (line) => lines.push(line) }));
    try {
      const platform = (await get())['platform'] as Record<string, Record<string, unknown>>;
      assert.deepEqual(platform['scene'], {
        appearAfter: 3,
        background: null,
        links: [
          { id: 1, label: 'Home' },
          { id: 2, label: 'Shop' },
        ],
        reveal: '$revealImage',
        download: '',
      });
      assert.deepEqual(platform['other'], { title: 'Kept beside the file with odd values' });
      await get();
      assert.equal(lines.length, 6, lines.join('\n'));
      assert.ok(lines.every((line) => line.startsWith('platform-kit: VccMiddleware: warning: .platform/customization/scene.json:/scene/')));
      assert.match(lines[0] ?? '', /\/scene\/appearAfter: value 3 does not fit type text/);
    } finally {
      await stop(server);
    }
  });

  it("the compat entry's VccMiddleware sets res.locals.koji, the same values as res.locals.platform; the kit's own sets no koji", async () => {
    const compat = await serve(createOriginalVccMiddleware({ root: template.root, env: ENV, log: () => undefined }));
    const kit = await serve(createVccMiddleware({ root: template.root, env: ENV, log: () => undefined }));
    try {
      const answer = await compat.get();
      assert.deepEqual(answer['koji'], answer['platform']);
      assert.equal((answer['koji'] as Record<string, Record<string, unknown>>)['scene']?.['appearAfter'], 3);
      assert.equal((answer['koji'] as Record<string, Record<string, unknown>>)['metadata']?.['projectId'], 'original-template');
      assert.equal(answer['id'], 'original-template');
      assert.equal((await kit.get())['koji'], null);
      assert.equal(OriginalVccMiddleware.create, createOriginalVccMiddleware);
    } finally {
      await stop(compat.server);
      await stop(kit.server);
    }
  });
});
