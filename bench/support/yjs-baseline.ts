/**
 * The baseline of the shard-state benchmark: the Yjs server from npm
 * (`@y/websocket-server` 0.1.x, its own `server.js`, unchanged, in a child
 * process: in-memory documents, no persistence) and its client protocol
 * (y-websocket's `WebsocketProvider`, in this process over `ws`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { WebSocket } from 'ws';
import * as Y from 'yjs';
import { WebsocketProvider } from 'y-websocket';
import { freePort } from '../../test/node/redis-support.js';
import { stopChild } from './signaling-process.js';

/** The Yjs server child: its URL (`ws://127.0.0.1:PORT`) and process. */
export interface YjsServer {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `@y/websocket-server`'s `server.js` on a free loopback port (`nodeArgs`: Node's own flags, before the script); resolves once it listens. */
export async function startYjsServer(nodeArgs: readonly string[] = []): Promise<YjsServer> {
  const port = await freePort();
  // Its package exports no "./src/server.js": the file is found beside its package.json.
  const packageJson = createRequire(import.meta.url).resolve('@y/websocket-server/package.json');
  const script = join(dirname(packageJson), 'src', 'server.js');
  // Without YPERSISTENCE (even empty, it turns LevelDB persistence on): documents in memory only, as ours.
  const { YPERSISTENCE: _persistence, ...env } = process.env;
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env: { ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`the Yjs server did not start within 20 s: ${seen}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      seen += String(chunk);
      if (seen.includes('running at')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the Yjs server exited with ${code}: ${seen}`));
    });
  });
  return { url: `ws://127.0.0.1:${port}`, child, stop: () => stopChild(child) };
}

/** One y-websocket client of a room: its document, resolved once synced with the server. */
export interface YjsClient {
  readonly doc: Y.Doc;
  readonly provider: WebsocketProvider;
  close(): void;
}

/**
 * Connects a y-websocket client to `room`; resolves once it is synced (the
 * server's sync step 2 arrived: it holds the server's whole document).
 * No BroadcastChannel (Node 20 has one: clients of one process would sync
 * through it, around the server) and no awareness state (the shard state has
 * no awareness; presence is the kit's own).
 */
export function connectYjsClient(serverUrl: string, room: string, timeoutMs = 30_000): Promise<YjsClient> {
  const doc = new Y.Doc();
  const provider = new WebsocketProvider(serverUrl, room, doc, { WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket, disableBc: true });
  provider.awareness.setLocalState(null);
  const close = (): void => {
    provider.destroy();
    doc.destroy();
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      close();
      reject(new Error(`y-websocket client of ${room} not synced within ${timeoutMs} ms`));
    }, timeoutMs);
    provider.once('sync', () => {
      clearTimeout(timer);
      resolve({ doc, provider, close });
    });
  });
}

/** Resolves once the server has `doc`'s local changes (nothing of this client left unsent: y-websocket writes at once, so a round trip after them suffices). */
export async function yjsFlushed(client: YjsClient, serverUrl: string, room: string, expectedKeysCount: number, timeoutMs = 30_000): Promise<void> {
  // A probe joins, checks it has everything, leaves: then the server held it.
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const probe = await connectYjsClient(serverUrl, room, timeoutMs);
    const keys = probe.doc.getMap('state').size;
    probe.close();
    if (keys >= expectedKeysCount) return;
    if (performance.now() > deadline) throw new Error(`the Yjs server holds ${keys} of ${expectedKeysCount} keys of ${room} after ${timeoutMs} ms (client ${client.doc.clientID})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
