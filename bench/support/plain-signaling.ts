/**
 * The least a WebRTC app's signalling server does, for the players-meet
 * benchmark's "plain" baseline: a `ws` server in a child process on a loopback
 * port (as the kit's server is a process of its own) that, per room (the URL's
 * path), remembers each socket's id from its first `here` frame, sends `here`
 * to every other socket of the room, and hands a frame with a `to` to that id.
 * No join, no presence list, no token, no checks: a floor, not a server to run.
 *
 * Run as a child: `node --import tsx bench/support/plain-signaling.ts --child`
 * prints `plain signaling: ws://127.0.0.1:PORT`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { printedUrl, stopChild } from './signaling-process.js';

/** The child process and its URL. */
export interface PlainSignaling {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startPlainSignaling(rootDir: string): Promise<PlainSignaling> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child'], { cwd: rootDir, stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = (): Promise<void> => stopChild(child);
  const url = await printedUrl(child, /plain signaling: (\S+)/, 'the plain signaling server').catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url, stop };
}

function serve(): void {
  const rooms = new Map<string, Map<string, WebSocket>>();
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  server.on('connection', (socket, request) => {
    const roomName = request.url ?? '/';
    const room = rooms.get(roomName) ?? new Map<string, WebSocket>();
    rooms.set(roomName, room);
    let id: string | undefined;
    socket.on('message', (data) => {
      const text = data.toString();
      const frame = JSON.parse(text) as { type: string; from: string; to?: string };
      if (frame.type === 'here' && id === undefined) {
        id = frame.from;
        room.set(id, socket);
      }
      if (frame.to !== undefined) room.get(frame.to)?.send(text);
      else for (const [other, peer] of room) if (other !== id) peer.send(text);
    });
    socket.on('close', () => {
      if (id !== undefined) room.delete(id);
      if (room.size === 0) rooms.delete(roomName);
    });
  });
  server.on('listening', () => {
    const address = server.address();
    if (typeof address === 'object' && address) console.log(`plain signaling: ws://127.0.0.1:${address.port}`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

if (process.argv.includes('--child')) serve();
