// The demo's host pages refuse to be framed (CSP frame-ancestors 'none'); its templates do not.
// Why: the feed refuses a template's navigate()/present() to the host page's own origin, but a
// URL of another origin that redirects there passes that check; the browser then refuses the
// host page in the frame by this header. The demo on a real port, dev server (Vite middleware).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startDemo, type DemoServer } from '../../demo/server.js';

describe('demo: who may be framed', () => {
  let demo: DemoServer;
  let dataDir = '';

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'platform-demo-framing-'));
    demo = await startDemo({ port: 0, dataDir, logLevel: 'silent' });
  });
  after(async () => {
    await demo?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const headerOf = async (url: string): Promise<{ status: number; csp: string | null }> => {
    const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    return { status: response.status, csp: response.headers.get('content-security-policy') };
  };

  it("serves the feed, the editor, the dashboard and the plain host with frame-ancestors 'none'", async () => {
    for (const page of ['/', '/editor.html?template=greeting', '/dashboard.html', '/plain.html']) {
      const { status, csp } = await headerOf(`${demo.url}${page}`);
      assert.equal(status, 200, page);
      assert.equal(csp, "frame-ancestors 'none'", page);
    }
  });

  it('serves the templates frameable, from either name of the server', async () => {
    for (const origin of [demo.templateOrigin, demo.url]) {
      const { status, csp } = await headerOf(`${origin}/templates/greeting/`);
      assert.equal(status, 200, origin);
      assert.equal(csp, null, origin);
    }
  });
});
