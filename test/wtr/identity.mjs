// Node-side help for test/browser/identity.test.ts: the real server (the
// `platform-kit-server` bin, in a child process since it is TypeScript) with
// its services mounted, and two routes that play the host's backend:
// `/__identity/token?user=` asks the server for a user token with the admin key
// (which never reaches the browser), `/__identity/verify` plays the template's
// backend resolving a token with its project credentials.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ADMIN_KEY = 'browser-test-admin-key';
const PROJECT = { id: 'template', token: 'browser-test-project-token', owner: 'alice' };
let child;
let servicesUrl;
let dataDir;

function readBody(req) {
  return new Promise((resolveBody, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function startServices() {
  dataDir = mkdtempSync(join(tmpdir(), 'platform-identity-browser-'));
  const args = [
    '--import',
    'tsx',
    join(root, 'signaling/bin.ts'),
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--project',
    `${PROJECT.id}:${PROJECT.token}`,
    '--owner',
    `${PROJECT.id}:${PROJECT.owner}`,
    '--admin-key',
    ADMIN_KEY,
    '--data-dir',
    dataDir,
  ];
  child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  servicesUrl = await new Promise((resolveUrl, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('the identity server did not start within 20 s')), 20_000);
    child.stdout.on('data', (chunk) => {
      text += chunk.toString();
      const match = /^platform-kit signaling: (\S+)$/m.exec(text);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`the identity server exited (${code})`)));
  });
}

async function stopServices() {
  const proc = child;
  child = undefined;
  if (proc && proc.exitCode === null) {
    await new Promise((resolveExit) => {
      proc.once('exit', resolveExit);
      proc.kill('SIGTERM');
    });
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

// The runner may exit before an async serverStop has finished: never leave the child or its data behind.
process.once('exit', () => {
  child?.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

export default [
  {
    name: 'platform-kit-identity',
    async serverStart() {
      // A failure here must not stop the other suites: the identity tests then fail on their own.
      await startServices().catch((error) => console.error(`platform-kit-identity: ${error.message}`));
    },
    async serverStop() {
      await stopServices();
    },
    async serve(ctx) {
      if (!ctx.path.startsWith('/__identity/')) return undefined;
      if (!servicesUrl) return { status: 503, body: '{"error":"the services server did not start"}', type: 'application/json' };
      if (ctx.path === '/__identity/token') {
        const response = await fetch(`${servicesUrl}/services/identity/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-platform-project-id': PROJECT.id, authorization: `Bearer ${ADMIN_KEY}` },
          body: JSON.stringify({ userId: ctx.query.user ?? 'guest', attributes: { username: String(ctx.query.user ?? 'guest') } }),
        });
        const body = await response.json();
        if (!response.ok) return { status: response.status, body: JSON.stringify(body), type: 'application/json' };
        const result = { userToken: body.token, presumedRole: body.role, presumedAttributes: body.attributes };
        return { body: JSON.stringify(result), type: 'application/json', headers: { 'cache-control': 'no-store' } };
      }
      if (ctx.path === '/__identity/verify' && ctx.method === 'POST') {
        const response = await fetch(`${servicesUrl}/services/identity/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-platform-project-id': PROJECT.id, authorization: `Bearer ${PROJECT.token}` },
          body: await readBody(ctx.req),
        });
        return { status: response.status, body: await response.text(), type: 'application/json' };
      }
      return undefined;
    },
  },
];
