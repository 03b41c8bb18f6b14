// Browser suites of Dispatch: a real signaling server in a child process
// (`node --import tsx signaling/bin.ts`, the `platform-kit-server` bin), peerjs
// served as its prebuilt browser bundle (its CommonJS dependencies do not load
// in the dev server), and commands a test runs in Node through
// executeServerCommand: restart the server (same port, same data directory, so
// resume tokens still check), issue user tokens through the server's services
// route with the admin key, drive Node backend clients (PlatformBackend.Dispatch).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = fileURLToPath(new URL('../../', import.meta.url));
const PROJECT = 'demo';
const TOKEN = 'demo-project-token';
const SECRET = 'browser-tests-identity-secret-0123456789';
const ADMIN_KEY = 'browser-tests-admin-key';
const PEERJS_URL = '/__platform-kit/peerjs.mjs';

let child = null;
let dataDir = '';
let url = '';
let port = 0;
const backends = new Map();
let backendModule = null;

function startServer(wantedPort) {
  dataDir ||= mkdtempSync(join(tmpdir(), 'platform-signaling-browser-'));
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'signaling/bin.ts',
        '--port',
        String(wantedPort),
        '--host',
        '127.0.0.1',
        '--project',
        `${PROJECT}:${TOKEN}`,
        '--identity-secret',
        SECRET,
        '--admin-key',
        ADMIN_KEY,
        '--data-dir',
        dataDir,
        '--heartbeat-ms',
        '2000',
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let buffer = '';
    const timer = setTimeout(() => reject(new Error('signaling server did not start within 20 s')), 20_000);
    proc.stdout.on('data', (chunk) => {
      buffer += chunk;
      const match = /platform-kit signaling: (\S+)/.exec(buffer);
      if (match && !url) {
        clearTimeout(timer);
        url = match[1];
        port = Number(new URL(url).port);
        resolve();
      }
    });
    proc.once('exit', (code) => {
      if (!url) reject(new Error(`signaling server exited with ${code}`));
    });
    child = proc;
  });
}

async function stopServer() {
  const proc = child;
  child = null;
  if (!proc || proc.exitCode !== null) return;
  await new Promise((resolve) => {
    proc.once('exit', resolve);
    proc.kill('SIGKILL'); // a crash, not a graceful shutdown: clients must notice on their own
  });
}

async function backendClass() {
  backendModule ??= await tsImport('../../signaling/backend-dispatch.ts', import.meta.url);
  return backendModule.Dispatch;
}

async function issueToken(userId, ttlSeconds = 600) {
  // As a host backend does (requestUserToken): the admin key vouches for the user.
  const response = await fetch(`${url}/services/identity/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-platform-project-id': PROJECT, 'content-type': 'application/json' },
    body: JSON.stringify({ userId, ttlSeconds }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`token route answered ${response.status}: ${JSON.stringify(body)}`);
  return body.token;
}

const commands = {
  'signaling-url': async () => ({ url, project: PROJECT }),
  'signaling-user-token': async ({ userId, ttlSeconds }) => ({ token: await issueToken(userId, ttlSeconds) }),
  // The server's GET /metrics (Prometheus text) as { name: value }, e.g. peer_sockets.
  'signaling-metrics': async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return Object.fromEntries(
      text
        .trim()
        .split('\n')
        .map((line) => [line.split(' ')[0].replace(/^platform_kit_/, ''), Number(line.split(' ')[1])]),
    );
  },
  'signaling-restart': async ({ downMs = 300 } = {}) => {
    const keep = port;
    await stopServer();
    url = '';
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await startServer(keep);
    return { url };
  },
  'backend-connect': async ({ name, config = {}, events = [] }) => {
    const Dispatch = await backendClass();
    const client = new Dispatch({ projectId: PROJECT, projectToken: TOKEN, url, reconnectInitialDelayMs: 100 });
    const received = [];
    for (const eventName of events) client.on(eventName, (payload, meta) => received.push({ eventName, payload, meta }));
    backends.set(name, { client, received });
    return client.connect(config);
  },
  'backend-emit': async ({ name, eventName, payload, recipients }) => {
    await backends.get(name).client.emitEvent(eventName, payload, recipients);
    return { ok: true };
  },
  'backend-received': async ({ name }) => backends.get(name).received,
  'backend-clients': async ({ name }) => backends.get(name).client.session.connectedClients,
  'backend-disconnect': async ({ name }) => {
    await backends.get(name)?.client.disconnect();
    backends.delete(name);
    return { ok: true };
  },
};

// The runner may exit before an async serverStop has finished: never leave the child or its data behind.
process.once('exit', () => {
  child?.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

export default [
  {
    name: 'platform-kit-signaling',
    async serverStart() {
      await startServer(0);
    },
    async serverStop() {
      for (const { client } of backends.values()) await client.disconnect();
      backends.clear();
      await stopServer();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      dataDir = '';
    },
    resolveImport({ source }) {
      if (source === 'peerjs') return PEERJS_URL;
    },
    serve(context) {
      if (context.path !== PEERJS_URL) return;
      // The prebuilt bundle sets window.peerjs; re-exported as an ES module.
      const bundle = readFileSync(new URL('../../node_modules/peerjs/dist/peerjs.min.js', import.meta.url), 'utf8');
      return { body: `${bundle}\nexport const Peer = window.peerjs.Peer;\nexport default Peer;\n`, type: 'js' };
    },
    async executeCommand({ command, payload }) {
      const run = commands[command];
      if (!run) return undefined;
      return run(payload ?? {});
    },
  },
];
