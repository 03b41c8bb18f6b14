// A server under measurement, alone in its process: `ours` (the signaling
// server), `peer` (PeerServer), `socketio` (Socket.IO: a room join and a
// presence broadcast of the room's member list) or `colyseus` (Colyseus:
// `joinOrCreate` on a room of 10 whose state holds the members). It reports
// its port over IPC and answers `measure` with its memory after a full GC,
// its CPU time so far and how its clients sit in rooms. Its messages carry
// `bench` ('ready', 'measure'): Colyseus loads @pm2/io (a peer dependency
// npm installs with it), which takes any IPC channel for PM2's and writes
// its own messages to it.
// Run with --expose-gc. A second argument `open` lifts our server's
// per-address limits (the idle-50k harness: every client is on loopback).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSignalingServer } from '../../signaling/server.js';

const kind = process.argv[2];
const open = process.argv[3] === 'open';
const gc = (globalThis as { gc?: () => void }).gc;

/** Members per room (shard), as the bench asks of every server. */
const ROOM_SIZE = 10;

/** How the server's clients sit in rooms right now: to check that every server did the same placement. */
let rooms: () => Promise<{ rooms: number; members: number }> = async () => ({ rooms: 0, members: 0 });

async function startOurs(): Promise<number> {
  const server = createSignalingServer({
    port: 0,
    host: '127.0.0.1',
    projects: { bench: 'bench-token' },
    // Every simulated client comes from 127.0.0.1. The join limit per address stays on, so each
    // join pays for its check, with a burst above the bench's 10,000 joins. (Spreading the
    // clients over 127.0.0.x instead makes the bench's own bind() calls crawl once tens of
    // thousands of its earlier sockets sit in TIME_WAIT: one turn fell to 369 joins/s.)
    // `open` (idle-50k): tens of thousands of sockets from a few loopback addresses, over the
    // limits meant for one real address, as test/node/redis-scale.test.ts does.
    limits: open
      ? {
          maxEventsPerSecond: 100_000,
          maxMessagesPerSecond: 100_000,
          maxJoinsPerAddressPerMinute: 0,
          maxShardsPerAddressPerMinute: 0,
          maxUnjoinedSocketsPerAddress: 0,
          maxShardsPerProject: 1_000_000,
        }
      : { maxEventsPerSecond: 100_000, maxMessagesPerSecond: 100_000, maxJoinsPerAddressPerMinute: 1_000_000, maxShardsPerAddressPerMinute: 1_000_000 },
  });
  await server.ready;
  rooms = async () => {
    const metrics = server.metrics();
    return { rooms: metrics.shards, members: metrics.members };
  };
  return Number(new URL(server.url).port);
}

async function startPeer(): Promise<number> {
  const { PeerServer } = await import('peer');
  return new Promise((resolve) => {
    PeerServer({ port: 0, host: '127.0.0.1', path: '/', concurrent_limit: 1_000_000 }, (server) => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

/**
 * Socket.IO doing what our join does, the way a Socket.IO application would:
 * the join rides in the connect packet's `auth` (as ours rides in the
 * WebSocket handshake), the server places the socket in the first room with
 * a free seat (rooms of 10 filled in order, as ours fills shards), joins it
 * to that room, answers `joined` with its id and the room's member list, and
 * broadcasts the member list to the room's other members (presence).
 */
async function startSocketIo(): Promise<number> {
  const { Server } = await import('socket.io');
  const http = createServer();
  // WebSocket only, no compression (the default), no client bundle: the same transport as ours.
  const io = new Server(http, { transports: ['websocket'], serveClient: false, perMessageDeflate: false });
  const members = new Map<string, string[]>();
  // Rooms with a free seat, oldest first (a Set keeps insertion order).
  const vacant = new Set<string>();
  let nextRoom = 0;
  io.on('connection', (socket) => {
    let room = vacant.values().next().value;
    if (room === undefined) {
      room = `room-${nextRoom++}`;
      members.set(room, []);
      vacant.add(room);
    }
    const list = members.get(room)!;
    list.push(socket.id);
    if (list.length >= ROOM_SIZE) vacant.delete(room);
    void socket.join(room);
    socket.emit('joined', { id: socket.id, room, members: list });
    socket.to(room).emit('presence', { room, members: list });
    const joinedRoom = room;
    socket.on('disconnect', () => {
      const current = members.get(joinedRoom);
      if (!current) return;
      current.splice(current.indexOf(socket.id), 1);
      if (current.length === 0) {
        members.delete(joinedRoom);
        vacant.delete(joinedRoom);
      } else {
        vacant.add(joinedRoom);
        socket.to(joinedRoom).emit('presence', { room: joinedRoom, members: current });
      }
    });
  });
  rooms = async () => ({ rooms: members.size, members: [...members.values()].reduce((sum, list) => sum + list.length, 0) });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return (http.address() as AddressInfo).port;
}

/**
 * Colyseus as its documentation shows it: a room type with `maxClients` 10
 * whose state (a Schema) holds the members in a MapSchema, joined with
 * `joinOrCreate('room')`; the matchmaker fills rooms in order and the state
 * patches reach every member (presence).
 */
async function startColyseus(): Promise<number> {
  const [{ Server, Room, matchMaker }, { WebSocketTransport }, { schema, t }] = await Promise.all([
    import('@colyseus/core'),
    import('@colyseus/ws-transport'),
    import('@colyseus/schema'),
  ]);
  // `schema()` with `t` builders (schema 5) rather than decorated class fields: no decorator settings needed here.
  const Member = schema({ id: t.string() });
  const State = schema({ members: t.map(Member) });
  type StateType = InstanceType<typeof State>;
  // 0.18 takes the state as a field (setState() remains, the documented way is this one).
  class ShardRoom extends Room<{ state: StateType }> {
    override maxClients = ROOM_SIZE;
    // Its default, 15 s between the seat reservation and the socket, ran out on this 2-core machine under
    // load averages of 13 to 46 (`seat reservation expired`, close 4002): 0.18 spends ~1.5 ms of CPU per
    // join. 60 s refuses no join the other servers would have admitted; it makes nothing faster.
    override seatReservationTimeout = 60;
    override state = new State();
    override onJoin(client: { sessionId: string }): void {
      const member = new Member();
      member.id = client.sessionId;
      this.state.members.set(client.sessionId, member);
    }
    override onLeave(client: { sessionId: string }): void {
      this.state.members.delete(client.sessionId);
    }
  }
  const http = createServer();
  const server = new Server({ transport: new WebSocketTransport({ server: http, perMessageDeflate: false }), greet: false });
  server.define('room', ShardRoom);
  await server.listen(0, '127.0.0.1');
  rooms = async () => {
    const list = await matchMaker.query({});
    return { rooms: list.length, members: list.reduce((sum, room) => sum + room.clients, 0) };
  };
  return (http.address() as AddressInfo).port;
}

const starters: Record<string, () => Promise<number>> = { ours: startOurs, peer: startPeer, socketio: startSocketIo, colyseus: startColyseus };

process.on('message', (message: unknown) => {
  if (message !== 'measure') return;
  for (let i = 0; i < 3; i++) gc?.();
  const memory = process.memoryUsage();
  void rooms().then((placement) => {
    process.send?.({ bench: 'measure', heapUsed: memory.heapUsed, rss: memory.rss, external: memory.external, cpu: process.cpuUsage(), ...placement });
  });
});
process.on('disconnect', () => process.exit(0));
const start = kind === undefined ? undefined : starters[kind];
if (!start) throw new Error(`unknown server kind ${kind} (known: ${Object.keys(starters).join(', ')})`);
/** This process's soft limit on open files (each client socket is one), as the idle-50k harness reports it. */
function maxOpenFiles(): number {
  const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
  return line === undefined || line === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(line);
}
process.send?.({ bench: 'ready', port: await start(), maxOpenFiles: maxOpenFiles() });
