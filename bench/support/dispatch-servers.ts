/**
 * What the server benchmarks share (dispatch-server, dispatch-peers,
 * idle-50k): a server under measurement alone in a child process
 * (dispatch-server-child.ts), the clients' side of each server's join spoken
 * on a plain `ws` socket, and one measured turn: N clients joined with a
 * fixed number in flight, then the server's memory after a full GC.
 *
 * Every client is the same `ws` client without compression, in the bench's
 * process, writing the frames the server's own client library writes and
 * waiting for the frame that library waits for, no more: the clients' CPU
 * per join differs only by what each protocol asks of them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { encodeHandshakeJoin, SIGNALING_VERSION } from '../../protocol/signaling.js';
import { bytes, table } from './bench.js';

/** The servers: ours, PeerServer (`peer`), Socket.IO, Colyseus. */
export type ServerKind = 'ours' | 'peer' | 'socketio' | 'colyseus';

/** Names for tables. */
export const SERVER_NAMES: Record<ServerKind, string> = {
  ours: 'ours (signaling)',
  peer: 'PeerServer (peer 1.0.2)',
  socketio: 'Socket.IO 4.8 (room + presence)',
  colyseus: 'Colyseus 0.18 (joinOrCreate, MapSchema)',
};

/** What the child reports on `measure`. */
export interface Measure {
  heapUsed: number;
  rss: number;
  external: number;
  cpu: { user: number; system: number };
  /** Rooms (shards) and members the server holds: every server must place alike. */
  rooms: number;
  members: number;
}

/** One turn of one server. */
export interface Turn {
  joinsPerSecond: number;
  heapPerClient: number;
  rssPerClient: number;
  /** Server process CPU for all joins. */
  cpuMs: number;
  /** This (client) process's CPU for all joins: it shares the 2 cores with the server. */
  clientCpuMs: number;
  /** Frames the clients received until 1.5 s after the last join (joined, presence…). */
  frames: number;
  /** Rooms and members the server reported at the memory measure. */
  rooms: number;
  members: number;
}

/** A server child, started. */
export interface ServerChild {
  readonly child: ChildProcess;
  readonly port: number;
  /** The child's "Max open files" (soft limit), from /proc/self/limits. */
  readonly maxOpenFiles: number;
}

const CHILD = fileURLToPath(new URL('./dispatch-server-child.ts', import.meta.url));

/**
 * Starts `kind` alone in a child process. `openFiles`: the file descriptor
 * limit to ask for (`ulimit -n` in a shell that then execs node); a machine
 * that does not allow it gives its hard limit instead, which the child reports.
 */
export function startServer(kind: ServerKind, options: { args?: readonly string[]; openFiles?: number } = {}): Promise<ServerChild> {
  const node = [process.execPath, '--import', 'tsx', '--expose-gc', CHILD, kind, ...(options.args ?? [])];
  const quoted = node.map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(' ');
  const script = options.openFiles === undefined ? `exec ${quoted}` : `ulimit -n ${options.openFiles} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec ${quoted}`;
  // Through sh so that `ulimit` applies to the child alone; the IPC channel survives the exec.
  const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.on('message', function ready(message) {
      if (!isBenchMessage(message, 'ready')) return;
      child.off('message', ready);
      const { port, maxOpenFiles } = message as unknown as { port: number; maxOpenFiles: number };
      resolve({ child, port, maxOpenFiles });
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

/** Ours, not PM2's (see dispatch-server-child.ts). */
function isBenchMessage(message: unknown, kind: 'ready' | 'measure'): message is Record<string, unknown> {
  return typeof message === 'object' && message !== null && (message as { bench?: unknown }).bench === kind;
}

/** The child's memory (after three full GCs), CPU and placement. */
export function measure(child: ChildProcess): Promise<Measure> {
  return new Promise((resolve) => {
    child.on('message', function measured(message) {
      if (!isBenchMessage(message, 'measure')) return;
      child.off('message', measured);
      resolve(message as unknown as Measure);
    });
    child.send('measure');
  });
}

/** The clients' side of one server's join. */
export interface ClientProtocol {
  /** Opens client `i`'s socket (after whatever HTTP request the protocol needs first). */
  open(i: number): WebSocket | Promise<WebSocket>;
  /** Handles one frame (answering it if the protocol says so); true once the join is done. */
  onFrame(socket: WebSocket, data: Buffer, isBinary: boolean): boolean;
  /** Releases what the protocol holds (an HTTP agent). */
  close(): void;
}

/** Options of the client sockets: the same for every server. */
const SOCKET_OPTIONS = { perMessageDeflate: false } as const;

/**
 * Ours: what the browser client (session.ts, v2) sends, the join in the
 * handshake (`encodeHandshakeJoin`), done when `joined` arrives; the server
 * places the client in a shard of 10, issues its client id, peer id and
 * resume token, and tells the shard's other members (presence).
 */
function oursProtocol(port: number, localAddress: string | undefined): ClientProtocol {
  return {
    open() {
      const protocols = encodeHandshakeJoin({ type: 'join', v: SIGNALING_VERSION, id: 1, projectId: 'bench', kind: 'browser', maxConnectionsPerShard: 10, userInfo: {} });
      return new WebSocket(`ws://127.0.0.1:${port}/dispatch`, protocols ? [...protocols] : [], { ...SOCKET_OPTIONS, ...(localAddress === undefined ? {} : { localAddress }) });
    },
    onFrame: (_socket, data) => String(data).startsWith('{"type":"joined"'),
    close() {},
  };
}

/** PeerServer: the peerjs client's socket (`/peerjs?key&id&token&version`), done when `OPEN` arrives; it registers the peer id and tells nobody. */
function peerProtocol(port: number): ClientProtocol {
  const run = Date.now();
  return {
    open: (i) => new WebSocket(`ws://127.0.0.1:${port}/peerjs?key=peerjs&id=peer${i}x${run}&token=t${i}&version=1.5.5`, SOCKET_OPTIONS),
    onFrame: (_socket, data) => String(data).includes('"OPEN"'),
    close() {},
  };
}

/**
 * Socket.IO: what socket.io-client 4 writes over its WebSocket transport
 * (Engine.IO 4). The server opens with `0{sid…}`; the client connects to the
 * namespace with its join in `auth` (`40{…}`); done when `joined` arrives
 * (`42["joined",…]`). Engine.IO pings (`2`) are answered (`3`) as the client
 * library does, so idle sockets stay.
 */
function socketIoProtocol(port: number): ClientProtocol {
  const connect = `40${JSON.stringify({ projectId: 'bench', maxMembers: 10 })}`;
  return {
    open: () => new WebSocket(`ws://127.0.0.1:${port}/socket.io/?EIO=4&transport=websocket`, SOCKET_OPTIONS),
    onFrame(socket, data) {
      const frame = String(data);
      if (frame.startsWith('0')) socket.send(connect);
      else if (frame === '2') socket.send('3');
      return frame.startsWith('42["joined"');
    },
    close() {},
  };
}

/** Colyseus protocol codes (@colyseus/shared-types Protocol, unchanged from 0.16 for these). */
const JOIN_ROOM = 10;
const ROOM_STATE = 14;
const JOIN_ROOM_ACK = Buffer.from([JOIN_ROOM]);

/**
 * Colyseus: what the Colyseus 0.18 SDK's `client.joinOrCreate('room')` does. A
 * matchmaking request (`POST /matchmake/joinOrCreate/room`, on a keep-alive
 * agent as Node's global agent and browsers do) reserves a seat; the socket
 * opens at `/<processId>/<roomId>?sessionId=…`; the server sends JOIN_ROOM,
 * the client acknowledges it, and the server sends the room's full state
 * (the member list). Done when the state arrives (the SDK resolves its
 * promise at JOIN_ROOM, half a round trip earlier, with no member list yet).
 */
function colyseusProtocol(port: number): ClientProtocol {
  // As Node's global agent (keep-alive, LIFO, 5 s), a little under the server's 5 s keep-alive timeout.
  const agent = new Agent({ keepAlive: true, scheduling: 'lifo', timeout: 4_000 });
  // 0.18's seat reservation is flat (ISeatReservation in @colyseus/shared-types); 0.16 nested the room.
  type Seat = { name: string; roomId: string; processId: string; sessionId: string };
  async function reserve(): Promise<Seat> {
    try {
      return await post(agent);
    } catch (error) {
      // A kept-alive socket the server closed as the request left on it: retry on a new connection,
      // as Node's documentation advises (the server closes sockets idle for 5 s; a lane's socket idles
      // while its WebSocket joins, which can take that long on a loaded machine).
      if ((error as { reused?: boolean }).reused !== true) throw error;
      return post(false);
    }
  }
  function post(via: Agent | false): Promise<Seat> {
    return new Promise((resolve, reject) => {
      const body = '{}';
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/matchmake/joinOrCreate/room',
          agent: via,
          headers: { Accept: 'application/json', 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => {
            if (response.statusCode !== 200) reject(new Error(`matchmake answered ${response.statusCode}: ${text}`));
            else resolve(JSON.parse(text) as Seat);
          });
        },
      );
      req.once('error', (error) => reject(Object.assign(error, { reused: req.reusedSocket })));
      req.end(body);
    });
  }
  return {
    async open() {
      const seat = await reserve();
      return new WebSocket(`ws://127.0.0.1:${port}/${seat.processId}/${seat.roomId}?sessionId=${seat.sessionId}`, SOCKET_OPTIONS);
    },
    onFrame(socket, data) {
      if (data[0] === JOIN_ROOM) socket.send(JOIN_ROOM_ACK);
      return data[0] === ROOM_STATE;
    },
    close: () => agent.destroy(),
  };
}

/** The clients' protocol for `kind` on `port`; `localAddress` (ours only) binds its sockets to a loopback source address. */
export function clientProtocol(kind: ServerKind, port: number, localAddress?: string): ClientProtocol {
  switch (kind) {
    case 'ours':
      return oursProtocol(port, localAddress);
    case 'peer':
      return peerProtocol(port);
    case 'socketio':
      return socketIoProtocol(port);
    case 'colyseus':
      return colyseusProtocol(port);
  }
}

/** Joins `count` clients, `inFlight` at a time; each is done when the protocol says so. */
export async function joinAll(protocol: ClientProtocol, count: number, inFlight: number, first = 0): Promise<{ sockets: WebSocket[]; ms: number; frames: () => number }> {
  const sockets: WebSocket[] = [];
  let next = first;
  const end = first + count;
  let frames = 0;
  const started = performance.now();
  async function lane(): Promise<void> {
    while (next < end) {
      const i = next++;
      const socket = await protocol.open(i);
      sockets.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.on('message', (data: Buffer, isBinary: boolean) => {
          frames++;
          if (protocol.onFrame(socket, data, isBinary)) resolve();
        });
        socket.once('error', reject);
        // A socket the server closed before it answered would otherwise hang this lane forever.
        socket.once('close', (code) => reject(new Error(`socket ${i} closed (${code}) before it joined`)));
      });
    }
  }
  await Promise.all(Array.from({ length: inFlight }, lane));
  return { sockets, ms: performance.now() - started, frames: () => frames };
}

/**
 * One turn: a fresh server child, `clients` joins with `inFlight` at a time,
 * 1.5 s of idle, then its memory after GC minus the same process idle before
 * the clients came.
 */
export async function runTurn(kind: ServerKind, clients: number, inFlight: number): Promise<Turn> {
  const { child, port } = await startServer(kind);
  const protocol = clientProtocol(kind, port);
  try {
    const idle = await measure(child);
    const clientCpu = process.cpuUsage();
    const { sockets, ms, frames } = await joinAll(protocol, clients, inFlight);
    const client = process.cpuUsage(clientCpu);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const loaded = await measure(child);
    const received = frames();
    for (const socket of sockets) socket.terminate();
    return {
      joinsPerSecond: clients / (ms / 1000),
      heapPerClient: (loaded.heapUsed + loaded.external - idle.heapUsed - idle.external) / clients,
      rssPerClient: (loaded.rss - idle.rss) / clients,
      cpuMs: (loaded.cpu.user + loaded.cpu.system - idle.cpu.user - idle.cpu.system) / 1000,
      clientCpuMs: (client.user + client.system) / 1000,
      frames: received,
      rooms: loaded.rooms,
      members: loaded.members,
    };
  } finally {
    protocol.close();
    // SIGKILL: Colyseus (and @pm2/io) catch SIGTERM for a graceful shutdown that waits on its rooms.
    child.kill('SIGKILL');
  }
}

/** Mean of one field over turns. */
export const mean = (turns: readonly Turn[], key: keyof Turn): number => turns.reduce((sum, turn) => sum + turn[key], 0) / turns.length;

/**
 * Median over the pairs of `ours[i] / theirs[i]`: in an ABBA order the i-th
 * turns of two servers are neighbours, so the load of the moment weighs on
 * both sides of each pair alike.
 */
export function pairedRatio(ours: readonly Turn[], theirs: readonly Turn[], key: 'joinsPerSecond' | 'rssPerClient' | 'heapPerClient'): number {
  const ratios = ours.map((turn, i) => turn[key] / theirs[i]![key]).sort((a, b) => a - b);
  const middle = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1 ? ratios[middle]! : (ratios[middle - 1]! + ratios[middle]!) / 2;
}

/** `bytes` as `6.3 KB`. */
export const kb = (value: number): string => `${(value / 1024).toFixed(1)} KB`;

/** The table of turns: one row per server. */
export function turnsTable(rows: readonly { name: string; turns: readonly Turn[] }[], clients: number): string {
  return table(
    ['server', 'joins/s', 'turns', 'heap+external per client', 'RSS per client', 'turns (RSS)', 'server CPU per join', 'client CPU per join', 'frames received', 'rooms / members'],
    rows.map(({ name, turns }) => [
      name,
      bytes(Math.round(mean(turns, 'joinsPerSecond'))),
      turns.map((turn) => bytes(Math.round(turn.joinsPerSecond))).join(' / '),
      kb(mean(turns, 'heapPerClient')),
      kb(mean(turns, 'rssPerClient')),
      turns.map((turn) => kb(turn.rssPerClient)).join(' / '),
      `${(mean(turns, 'cpuMs') / clients).toFixed(3)} ms`,
      `${(mean(turns, 'clientCpuMs') / clients).toFixed(3)} ms`,
      bytes(Math.round(mean(turns, 'frames'))),
      [...new Set(turns.map((turn) => `${bytes(turn.rooms)} / ${bytes(turn.members)}`))].join(', '),
    ]),
  );
}
