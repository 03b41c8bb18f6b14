// Node-side help for test/browser/identity.test.ts: a real services server
// (child process, since it is TypeScript) and two routes that play the host's
// backend: `/__identity/token?user=` asks the services for a user token with
// the admin key (which never reaches the browser), `/__identity/verify` plays
// the template's backend resolving a token with its project credentials.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ADMIN_KEY = 'browser-test-admin-key';
const PROJECT = { id: 'template', token: 'browser-test-project-token' };
let child;
let servicesUrl;

function readBody(req) {
  return new Promise((resolveBody, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function startServices() {
  child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/fixtures/identity/services-server.ts')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  servicesUrl = await new Promise((resolveUrl, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('the identity services server did not start within 20 s')), 20_000);
    child.stdout.on('data', (chunk) => {
      text += chunk.toString();
      const match = /^url (\S+)$/m.exec(text);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`the identity services server exited (${code})`)));
  });
}

export default [
  {
    name: 'platform-kit-identity',
    async serverStart() {
      // A failure here must not stop the other suites: the identity tests then fail on their own.
      await startServices().catch((error) => console.error(`platform-kit-identity: ${error.message}`));
    },
    async serverStop() {
      child?.kill('SIGTERM');
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
