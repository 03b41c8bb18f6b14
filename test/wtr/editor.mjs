// Node-side help for the editor's browser tests (test/browser/editor-*.test.ts):
//   - an upload endpoint, so the test page's upload function does a real
//     upload (XHR with progress) and gets back an http URL the template loads;
//   - 'editor-screenshot': saves a PNG of the test page under test-artifacts/
//     (gitignored), the screenshot of the editor with a control open;
//   - 'editor-press-enter-for-file': presses enter and answers the native
//     file chooser it opens with a file, so a test picks a file with the
//     keyboard alone (enter on the control's button opens the real chooser).
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const artifacts = join(root, 'test-artifacts');
const UPLOAD_PREFIX = '/__editor/upload';
const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;
/** Uploaded files, in memory for the length of the test run. */
const uploads = new Map();
let nextUpload = 1;

function playwrightPage(session) {
  if (session.browser.type !== 'playwright') throw new Error('editor commands need the playwright launcher');
  return session.browser.getPage(session.id);
}

function readBody(req) {
  return new Promise((resolveBody, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_UPLOAD_BYTES) {
        reject(new Error('upload too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolveBody(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export default [
  {
    name: 'platform-kit-editor',
    // `serve` sees every request before the static files (any method), so it can take the POST too.
    async serve(ctx) {
      if (!ctx.path.startsWith(UPLOAD_PREFIX)) return undefined;
      if (ctx.method === 'POST' && ctx.path === UPLOAD_PREFIX) {
        const body = await readBody(ctx.req);
        const id = `${nextUpload++}-${String(ctx.get('x-file-name') || 'file').replace(/[^A-Za-z0-9._-]/g, '_')}`;
        uploads.set(id, { type: ctx.get('content-type') || 'application/octet-stream', body });
        return { body: JSON.stringify({ url: `${ctx.protocol}://${ctx.host}${UPLOAD_PREFIX}/${id}`, bytes: body.length }), type: 'application/json' };
      }
      const stored = ctx.method === 'GET' ? uploads.get(ctx.path.slice(UPLOAD_PREFIX.length + 1)) : undefined;
      // Anything else falls through to the static files, which answer 404.
      return stored ? { body: stored.body, type: stored.type, headers: { 'cache-control': 'no-store' } } : undefined;
    },
    async executeCommand({ command, payload, session }) {
      if (command === 'editor-screenshot') {
        const name = String(payload?.name ?? 'editor').replace(/[^A-Za-z0-9._-]/g, '_');
        await mkdir(artifacts, { recursive: true });
        const path = join(artifacts, `${name}.png`);
        await playwrightPage(session).screenshot({ path });
        return { path };
      }
      if (command === 'editor-press-enter-for-file') {
        // Presses enter (the focused control's "Choose…" button) and answers the native file chooser it opens.
        // One command for both: the chooser must be awaited before the key, as playwright documents.
        const page = playwrightPage(session);
        const { name, mimeType, text } = payload ?? {};
        // A page in a background tab gets no user activation from a key press, and then no chooser opens.
        await page.bringToFront();
        const chooser = page.waitForEvent('filechooser', { timeout: 5000 });
        // Listening makes playwright turn on file-chooser interception with a DevTools command it does not
        // await; a round trip on the same session lands after it, so the chooser cannot open un-intercepted.
        await page.evaluate(() => 0);
        await page.keyboard.press('Enter');
        await (await chooser).setFiles({ name: String(name), mimeType: String(mimeType), buffer: Buffer.from(String(text ?? '')) });
        return true;
      }
      return undefined;
    },
  },
];
