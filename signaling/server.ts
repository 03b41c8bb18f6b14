/**
 * The signaling server: one HTTP server with
 * - `/dispatch`: the control WebSocket (join, presence, identity, relay, clock sync; see protocol/signaling.ts),
 * - `/peerjs/peerjs`: the PeerJS signaling protocol for the WebRTC mesh (peer-signaling.ts),
 * - HTTP: `GET /`, `GET /health`, `GET /metrics` (Prometheus text) and `GET /info`
 *   (project credentials: `x-platform-project-id` and `authorization: Bearer <projectToken>`),
 * - the platform services (services/router.ts): `/services/identity/*` (user
 *   tokens), `/services/keystore/*` (secrets, signed URLs), `/services/cdn/*`
 *   (uploads), `/services/vcc/public-key`, and the CDN itself under `/cdn/*`.
 *
 * One identity: the services' {@link TokenIssuer} signs user tokens
 * (`POST /services/identity/tokens`) and the control socket verifies
 * `connect({ authorization })` and `identify()` with the same issuer, so its
 * keys (and their rotation) are configured once, with `identity.keys`.
 *
 * A factory: nothing listens until {@link createSignalingServer} is called.
 * Shard state goes through a {@link ShardStore} (memory by default), so the
 * server logic stays the same when state moves to Redis.
 */
import { randomBytes } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { DEFAULT_MAX_JSON_DEPTH, jsonDepthWithin, utf8Length } from '../protocol/data.js';
import { isPlatformError, PlatformError, serializeError, type ErrorCode } from '../protocol/errors.js';
import {
  CLOSE_CODES,
  CONTROL_PATH,
  CONTROL_SUBPROTOCOL,
  DEFAULT_MAX_CONNECTIONS_PER_SHARD,
  DEFAULT_MAX_EVENTS_PER_SECOND,
  DEFAULT_MAX_PAYLOAD_BYTES,
  FRAME_ENVELOPE_BYTES,
  isShardName,
  MAX_CONNECTIONS_PER_SHARD_LIMIT,
  MAX_USER_INFO_BYTES,
  MIN_SIGNALING_VERSION,
  parseClientMessage,
  parseHandshakeJoin,
  parseJsonObject,
  PEERJS_PATH,
  preciseNow,
  relayedEventFrame,
  SIGNALING_VERSION,
  type ClientMessage,
  type EmitMessage,
  type EventPayload,
  type JoinMessage,
  type JoinedMessage,
  type MemberWire,
  type ServerMessage,
  type ShardInfo,
  type WireLimits,
} from '../protocol/signaling.js';
import { randomId, readableShardName } from './names.js';
import { closeSoon, PeerSignaling } from './peer-signaling.js';
import { ResumeTokens } from './resume-token.js';
import type { CdnLimits, CdnTransform } from './services/cdn.js';
import { deriveKey, PROJECT_ID_HEADER, sameSecret } from './services/http.js';
import type { TokenIssuer, TokenKey } from './services/identity.js';
import { createServicesRouter, openServerKey, type ServicesProject, type ServicesRouter } from './services/router.js';
import type { SecretStore } from './services/secret-store.js';
import type { RemixContext, VCC_HEADER } from './services/vcc-headers.js';
import { createMemoryStore } from './store/memory-store.js';
import { createRedisStore } from './store/redis-store.js';
import { createRedisSecretStore } from './services/redis-secret-store.js';
import type { RedisOptions } from 'ioredis';
import type { MemberRecord, RateBuckets, ShardMessage, ShardStore } from './store/store.js';
import { clientAddress } from './client-address.js';
import { JoinLimiter } from './store/join-limit.js';

/**
 * Limits of the server; every one has a default and may be changed.
 *
 * The per-client buckets (`maxEventsPerSecond`, `maxMessagesPerSecond`) are
 * counted in the process that holds the socket, never with a store round trip
 * per frame. They travel with the client's session: saved in the store when
 * its socket goes (and at most once a second while it is being limited), so a
 * client that resumes, on this node or any other (Redis), even after kill -9
 * of its node, continues from its old levels plus the refill of the time in
 * between: reconnecting never refills a bucket. A client that was not limited
 * when its node died may get one burst back. A fresh join (not a resume) starts
 * full, and pays from `maxJoinsPerAddressPerMinute` instead.
 */
export interface SignalingLimits {
  /** Largest event payload, in UTF-8 bytes of JSON. Default 64 KiB; above: `PAYLOAD_TOO_LARGE`. */
  readonly maxPayloadBytes: number;
  /** Events per client per second, sustained (bursts up to twice as many). Default 100; above: `RATE_LIMITED`. */
  readonly maxEventsPerSecond: number;
  /** Other control frames per client per second (pings, identify, info…), burst twice. Default 50. */
  readonly maxMessagesPerSecond: number;
  /**
   * Joins (resumes included) per client address per minute, counted across
   * every node sharing the store (atomically: a Lua script in Redis), so joins
   * spread over many nodes count as on one. GCRA: up to this many at once,
   * then one every `60 s / N`. Above: the join is answered `RATE_LIMITED` and
   * the socket closes (clients retry their reconnections with backoff). The
   * address is the socket's remote address, or the one trusted proxies name
   * (see {@link SignalingServerOptions.trustProxy}); IPv6 counts by /64.
   * Default 3,000 (50 per second sustained): a crowd behind one NAT is not
   * refused, a join flood is. 0 or Infinity: no limit. Redis out of reach:
   * the limit admits (fails open; the join itself then answers
   * `UNAVAILABLE`), so a Redis blip never locks clients out.
   */
  readonly maxJoinsPerAddressPerMinute: number;
  /** Shards one project may have at once. Default 10,000; above: `TOO_MANY_SHARDS`. */
  readonly maxShardsPerProject: number;
  /** Largest `userInfo`, in UTF-8 bytes of JSON. Default (and most) 4 KiB; above: `VALUE_TOO_LARGE`. */
  readonly maxUserInfoBytes: number;
  /**
   * A socket's outgoing buffer above this is a consumer too slow to keep: the
   * socket is closed (terminated) instead of sending more. Every send on every
   * socket (control and PeerJS; answers, presence, events) checks it. Default 8 MiB.
   */
  readonly maxBufferedBytes: number;
  /**
   * Deepest nesting of `{`/`[` accepted in an inbound JSON frame (control and
   * PeerJS sockets, the handshake join, HTTP bodies), checked on the text
   * before it is parsed or anything re-serializes it: `JSON.parse` accepts any
   * depth, but `JSON.stringify` and every recursive walk throw near a few
   * thousand levels. Default 64 (event payloads, user info and remix values
   * nest at most 32 inside their frame); deeper: `INVALID_MESSAGE`.
   */
  readonly maxJsonDepth: number;
  /**
   * Refused frames (anything answered with an error: over a rate, malformed,
   * too deep, too large, before joining) a socket may send in a burst; the
   * allowance refills at a tenth of this per second. One more closes the
   * socket with {@link CLOSE_CODES.TOO_MANY_REFUSALS} (4029, reason
   * `RATE_LIMITED`): a client that keeps breaking a limit is disconnected, not
   * answered forever. Default 30. The client library never gets here: it
   * keeps its own events within the server's rate.
   */
  readonly maxRefusals: number;
  /**
   * Frames per PeerJS socket per second (offers, answers, ICE candidates,
   * heartbeats), bursts up to twice as many. Default 200 (a browser meshing
   * with 15 others sends about 100 at once). Above: the frame is dropped and
   * counts as a refusal (see {@link maxRefusals}).
   */
  readonly maxPeerMessagesPerSecond: number;
  /**
   * New shards (named or opened by automatic placement) one client address
   * may open per minute, counted across every node like
   * {@link maxJoinsPerAddressPerMinute} (GCRA). Default 100; above, the join
   * that would open one more is answered `RATE_LIMITED` and opens nothing.
   * 0 or Infinity: no limit. It keeps a few addresses from filling the
   * project's {@link maxShardsPerProject} with empty named shards.
   */
  readonly maxShardsPerAddressPerMinute: number;
  /**
   * Most shards one `info()` answers with, the emptiest first (most room
   * left for the default capacity). Default 100. An answer also costs the
   * client one message token per 4 KiB it takes, so asking is never cheaper
   * than the bytes it makes the server send.
   */
  readonly maxInfoShards: number;
  /**
   * Control sockets one client address may hold open before they join (or
   * while their join is under way). Default 256; one more upgrade is answered
   * HTTP 429 and never becomes a socket. 0 or Infinity: no limit. Sockets that
   * never join close after `joinTimeoutMs`; this keeps one address from
   * holding thousands of them meanwhile. Counted per node.
   */
  readonly maxUnjoinedSocketsPerAddress: number;
}

/** A served project, with the rules of who may join its shards. */
export interface SignalingProject extends ServicesProject {
  /**
   * Web origins (`https://app.example`, scheme, host and port as the browser
   * sends them in `Origin`) whose pages may join this project's shards. A
   * browser join from any other origin, or with no `Origin` at all, is refused
   * with `ORIGIN_REFUSED` and its socket closed (4003). Backend clients (with
   * the project token) are not browsers and are not checked. Default: any
   * origin, as anyone who knows the project id may join from any page: name
   * your origins in production.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Browser joins must carry a valid user token (`connect({ authorization })`,
   * see `Platform.identity`); without one, or with one that fails, the join is
   * refused `UNAUTHORIZED` (4001). Default false: anonymous members may join
   * (and an invalid token leaves them connected, unidentified).
   */
  readonly requireUserToken?: boolean;
  /**
   * Largest `maxConnectionsPerShard` a client of this project may ask for; a
   * larger request is lowered to it. Default (and at most) 1,000. A named
   * shard has no capacity of its own: each joiner is admitted while the shard
   * holds fewer members than it asked for, so the first joiner cannot make a
   * shard full for everyone (asking for 1) and the clients of a 2-player
   * game, all asking 2, still find the third seat taken.
   */
  readonly maxConnectionsPerShard?: number;
}

/** User tokens: one issuer signs them (services routes) and verifies them (connect, identify). */
export interface UserTokenOptions {
  /**
   * HS256 keys, newest first: the first signs, every one verifies. To rotate,
   * put a new key first and drop the old one after `maxTokenTtlSeconds`
   * (`server.tokens.rotate(key)` does the same at run time). Default: one key
   * derived from the server key (kid `server-1`), so tokens outlive a restart
   * as long as `dataDir` (or `secretKey`) stays the same.
   */
  readonly keys?: readonly TokenKey[];
  /** Lifetime of a token when the caller does not ask for one. Default 900 s (15 minutes). */
  readonly tokenTtlSeconds?: number;
  /** Longest lifetime a caller may ask for. Default 3600 s. */
  readonly maxTokenTtlSeconds?: number;
}

/** Options of {@link createSignalingServer}. */
export interface SignalingServerOptions {
  /** Port; 0 picks a free one. Default 8787. */
  readonly port?: number;
  /** Interface to listen on. Default: every interface. */
  readonly host?: string;
  /**
   * The projects served: `{ [projectId]: projectToken }`, or
   * `{ [projectId]: { token, ownerUserId, allowedOrigins, requireUserToken,
   * maxConnectionsPerShard } }` (see {@link SignalingProject}): the owner's user
   * tokens carry role 'admin' and may store secrets and upload files.
   * Backend clients and backend services present the token. Read on every
   * request: a project added to the object is served at once.
   */
  readonly projects: { readonly [projectId: string]: string | SignalingProject };
  /** Where shard state lives. Default: in memory (this process only), or Redis with {@link SignalingServerOptions.redis}. */
  readonly store?: ShardStore;
  /**
   * Run as one of N nodes sharing one Redis (`redis://…`, or ioredis options):
   * shards and capacity, presence, members within their grace period, the
   * keystore, rate-limit state (the join allowance per address, the buckets
   * saved with a session: see {@link SignalingLimits}) and cross-node traffic
   * (relayed events, presence, PeerJS signaling) go through Redis. Every
   * node must have the same `secretKey`
   * (or the same `server.key` in its `dataDir`): resume tokens, user tokens
   * and sealed secrets are keyed by it. Default: none (one process, in memory).
   * See redis-store.ts for the keys and the failure behaviour.
   */
  readonly redis?: string | RedisOptions;
  /** This node's id among the nodes sharing a Redis (1 to 64 of A-Z a-z 0-9 _ -). Default: random per start. */
  readonly nodeId?: string;
  /** Redis: a node that has not renewed its lease for this long is dead; the others remove its members. Default 30,000 ms. */
  readonly leaseMs?: number;
  /** User token keys and lifetimes; see {@link UserTokenOptions}. */
  readonly identity?: UserTokenOptions;
  /**
   * Directory of the server's state: `server.key` (created with mode 0600 on
   * first start; every signing key is derived from it), `secrets.json` (the
   * keystore, encrypted) and `cdn/` (uploaded files). Default: `.platform-data`
   * under the working directory. One process owns a directory.
   */
  readonly dataDir?: string;
  /** The 32-byte server key (bytes, or base64/base64url) instead of `<dataDir>/server.key`. */
  readonly secretKey?: Uint8Array | string;
  /**
   * The platform's admin key: a host backend asks `POST /services/identity/tokens`
   * for user tokens with it (`requestUserToken`). Default: none, and no user
   * tokens are issued over HTTP.
   */
  readonly adminKey?: string;
  /** Public base URL of the CDN, what signed URLs start with. Default `${server.url}/cdn`; set it behind a proxy. */
  readonly cdnUrl?: string;
  /** Issue tokens to anonymous viewers (`POST /services/identity/anonymous`, role 'unknown'). Default false. */
  readonly allowAnonymousTokens?: boolean;
  /** Upload limits of the CDN. Default: 25 MB, every content type of `KNOWN_CONTENT_TYPES`. */
  readonly uploadLimits?: CdnLimits;
  /** Rewrites CDN files for the query parameters of a signed URL (resize, crop…). Default: files are served as stored. */
  readonly transform?: CdnTransform;
  /** Where keystore secrets live (sealed). Default: `<dataDir>/secrets.json`. Pass a shared store when running many nodes. */
  readonly secretStore?: SecretStore;
  /** Limits; see {@link SignalingLimits}. */
  readonly limits?: Partial<SignalingLimits>;
  /** Ping interval of every socket; a socket silent for two intervals is removed. Default 10,000 ms (so within 30 s). */
  readonly heartbeatIntervalMs?: number;
  /**
   * Presence coalescing. A shard's presence changes (joins, leaves,
   * `setUserInfo`, `identify`) of one turn of the event loop always leave as
   * one frame. After a shard's presence was sent, its next changes wait up
   * to this long and leave together: a burst (a shard filling up) costs each
   * member a frame per window instead of one per join. A v2 client gets one
   * `op: 'batch'` frame, applies its changes in order and fires
   * `onConnectedClientsChanged` once with the latest list; a v1 client gets
   * the same changes one frame each. A shard's waiting changes always leave
   * before its next event, so a member is listed before its first event
   * arrives. 0: per turn only. Default 25 ms.
   */
  readonly presenceIntervalMs?: number;
  /** How long a dropped client keeps its id and place in its shard. Default 30,000 ms. */
  readonly reconnectGraceMs?: number;
  /** A socket that has not joined within this is closed. Default 10,000 ms. */
  readonly joinTimeoutMs?: number;
  /** Above this many browser members a shard relays every event instead of meshing. Default 16. */
  readonly meshMaxMembers?: number;
  /**
   * How many proxies in front of the server append the client's address to
   * `X-Forwarded-For` (1 for one nginx or load balancer). The join limit
   * ({@link SignalingLimits.maxJoinsPerAddressPerMinute}) then counts the
   * address the outermost of them saw, taken from the right of the header, so
   * entries a client forged are never used. Default 0: the socket's own
   * address, and the header is ignored. Behind a proxy, set it: otherwise
   * every client shares the proxy's address and its allowance.
   */
  readonly trustProxy?: number;
  /** Where diagnostic lines go. Default: nowhere. */
  readonly log?: (line: string) => void;
}

/** A running signaling server. */
export interface SignalingServer {
  /** Resolves once the server listens. */
  readonly ready: Promise<void>;
  /** `http://host:port` once ready (throws before). Clients derive `ws://host:port/dispatch` from it. */
  readonly url: string;
  /** Stops listening, closes every socket (code 1012: clients reconnect elsewhere or later) and the services' stores. */
  close(): Promise<void>;
  /**
   * Signs a user token, as `POST /services/identity/tokens` does (role 'admin'
   * for the project's owner, else 'user'). Rejects before `ready`.
   */
  issueUserToken(projectId: string, userId: string, ttlSeconds?: number): Promise<{ token: string; expiresAt: number }>;
  /** The user token issuer (once ready): `tokens.rotate(key)` rotates keys at run time. */
  readonly tokens: TokenIssuer;
  /** The VCC public key (once ready): give it to template backends as `PLATFORM_VCC_PUBLIC_KEY`. */
  readonly vccPublicKey: string;
  /** The `x-platform-vcc` header that carries an instant remix to its template's backend (once ready). */
  signRemixHeaders(context: RemixContext, options?: { ttlSeconds?: number }): { [VCC_HEADER]: string };
  /** Counters, as `GET /metrics` reports them. */
  metrics(): SignalingMetrics;
}

/** Counters of a server. */
export interface SignalingMetrics {
  readonly connections: number;
  readonly shards: number;
  readonly members: number;
  readonly peerSockets: number;
  readonly joins: number;
  readonly eventsIn: number;
  readonly deliveries: number;
  readonly errors: number;
  readonly invalidFrames: number;
  /** Joins refused by {@link SignalingLimits.maxJoinsPerAddressPerMinute}. */
  readonly joinsRateLimited: number;
  /** Joins refused by {@link SignalingLimits.maxShardsPerAddressPerMinute}. */
  readonly shardsRateLimited: number;
  /** Sockets closed (4029) past {@link SignalingLimits.maxRefusals}. */
  readonly disconnectedForRefusals: number;
  /** Upgrades answered 429 by {@link SignalingLimits.maxUnjoinedSocketsPerAddress}. */
  readonly upgradesRefused: number;
  readonly heapUsedBytes: number;
  readonly rssBytes: number;
}

const DEFAULT_LIMITS: SignalingLimits = {
  maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES,
  maxEventsPerSecond: DEFAULT_MAX_EVENTS_PER_SECOND,
  maxMessagesPerSecond: 50,
  maxJoinsPerAddressPerMinute: 3_000,
  maxShardsPerProject: 10_000,
  maxUserInfoBytes: MAX_USER_INFO_BYTES,
  maxBufferedBytes: 8 * 1024 * 1024,
  maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
  maxRefusals: 30,
  maxPeerMessagesPerSecond: 200,
  maxShardsPerAddressPerMinute: 100,
  maxInfoShards: 100,
  maxUnjoinedSocketsPerAddress: 256,
};

/** A client that drops this soon after its socket opened, having sent no event, keeps its place only {@link SHORT_VISIT_GRACE_MS}. */
const SHORT_VISIT_MS = 10_000;
/**
 * The grace of such a short visit (at most the server's reconnectGraceMs): a
 * join-and-drop costs the project a shard slot for seconds, not the whole grace
 * period, while a client whose first socket dies at once can still resume.
 */
const SHORT_VISIT_GRACE_MS = 5_000;
/** One message token per this many bytes of an `info` answer (SignalingLimits.maxInfoShards). */
const INFO_BYTES_PER_TOKEN = 4096;

/**
 * One control socket. Kept small: 10,000 idle clients must fit in 20 KB each,
 * sockets included, and in less than PeerServer's. No closures per socket
 * (the socket's handlers are shared functions that find their connection
 * through {@link ControlSocket.connection}), no timer per socket (one sweep
 * for all), no buffer per socket.
 */
class Connection {
  state: 'new' | 'joining' | 'joined' | 'offline' | 'closed' = 'new';
  alive = true;
  leaving = false;
  /** Wire version of the client's join: v1 clients get presence one change per frame. */
  version = SIGNALING_VERSION;
  projectId = '';
  shardName = '';
  clientId = '';
  kind: 'browser' | 'backend' = 'browser';
  userId: string | null = null;
  peerId: string | null = null;
  peerToken = '';
  maxConnectionsPerShard = DEFAULT_MAX_CONNECTIONS_PER_SHARD;
  /** Highest event seq received from this client. */
  lastSeq = 0;
  /** Tick of the presence clock when this connection joined its hub: it hears only later changes. */
  attachedAt = 0;
  // Rate limit buckets in thousandths of a token, stamped with {@link clock}: integers, which
  // V8 keeps in the object itself, where fractional ms and tokens would be a boxed number each.
  eventMilliTokens: number;
  eventStamp: number;
  messageMilliTokens: number;
  messageStamp: number;
  /** {@link clock} when the buckets were last saved while limited (see saveBuckets): at most once a second. */
  bucketsSavedAt = -1_000_000;
  /** What the join and shard limits count this socket's joins against (client-address.ts); '' when both are off. */
  address = '';
  /** The upgrade's `Origin` header ('' without one), for projects with `allowedOrigins`. */
  origin = '';
  /** Counted in its address's unjoined sockets (SignalingLimits.maxUnjoinedSocketsPerAddress) until it joins or closes. */
  unjoinedCounted = false;
  /** Refusals left (thousandths, like the buckets) at {@link refusalStamp}: see SignalingLimits.maxRefusals. */
  refusalMilliTokens: number;
  refusalStamp: number;
  graceTimer: ReturnType<typeof setTimeout> | undefined;
  constructor(
    readonly socket: ControlSocket,
    /** {@link clock} when the socket opened. */
    readonly openedAt: number,
    limits: SignalingLimits,
  ) {
    this.eventMilliTokens = limits.maxEventsPerSecond * 2000;
    this.messageMilliTokens = limits.maxMessagesPerSecond * 2000;
    this.refusalMilliTokens = limits.maxRefusals * 1000;
    this.eventStamp = this.messageStamp = this.refusalStamp = openedAt;
  }
}

/**
 * The control WebSocket, carrying its {@link Connection}: `ws` builds it
 * (`WebSocketServer`'s `WebSocket` option). Each server subclasses it once
 * and overrides `emit` to hand `message`, `close`, `pong` and `error` to its
 * handlers: no listener is registered, so no closure, no WeakMap entry and
 * no listener table per socket (an EventEmitter's `_events` is a
 * null-prototype object, a dictionary: 256 bytes once it holds four
 * listeners, as much as a third of what PeerServer spends per client).
 */
class ControlSocket extends WebSocket {
  connection: Connection | null = null;
  // EventEmitter's constructor gave this socket an empty listener table, a null-prototype
  // object that V8 keeps as a dictionary: about 215 bytes per socket, a fifteenth of all the
  // heap an idle client costs. This field (set right after that constructor) drops it. No
  // listener is ever added (emit is overridden), and EventEmitter makes the table again on a
  // first `on()` (it handles an `undefined` table everywhere).
  _events: object | undefined = undefined;
}

/** What a server does with its sockets' events. */
interface ControlSocketHandlers {
  message(connection: Connection, data: RawData, isBinary: boolean): void;
  close(connection: Connection): void;
  /** A handler threw: the one catch of the door (answers INTERNAL, logs); the process goes on. */
  threw(connection: Connection, error: unknown, during: string): void;
}

function controlSocketClass(handlers: ControlSocketHandlers): typeof ControlSocket {
  return class extends ControlSocket {
    // ws emits these four with at most two arguments; anything else (`ping`…) goes to EventEmitter as usual.
    override emit(event: string | symbol, first?: unknown, second?: unknown): boolean {
      if (event === 'error') {
        // A protocol error (bad frame, over maxPayload): the socket goes, and `close` follows.
        this.terminate();
        return true;
      }
      const connection = this.connection;
      if (connection === null) return super.emit(event, first, second);
      // The one catch of the door: whatever a handler throws is answered and logged, and no frame
      // of any client can end the process (ws would rethrow it from its socket's data callback).
      try {
        switch (event) {
          case 'message':
            handlers.message(connection, first as RawData, second as boolean);
            return true;
          case 'pong':
            connection.alive = true;
            return true;
          case 'close':
            handlers.close(connection);
            return true;
          default:
            return super.emit(event, first, second);
        }
      } catch (error) {
        handlers.threw(connection, error, String(event));
        return true;
      }
    }
  };
}

/** The part of a Node stream (net.Socket) the fan-out batching uses. */
interface CorkableStream {
  cork(): void;
  uncork(): void;
}

/** A presence change waiting for the end of the event loop turn. */
interface PendingPresence {
  /** The serialized single-change `presence` frame. */
  readonly frame: string;
  /** The client that must not hear it (the joiner of an `add`, the leaver of a `remove`). */
  readonly except: string | null;
  /** Tick of the presence clock: connections attached later already have it in their `joined` list. */
  readonly at: number;
}

interface Hub {
  /** `projectId\0shardName`. */
  readonly key: string;
  readonly locals: Map<string, Connection>;
  unsubscribe: () => void;
  /** Presence changes not sent yet (null: none). */
  presence: PendingPresence[] | null;
  /** Until then (performance.now()), a new presence change waits for the window timer; after, for the end of the turn. */
  quietUntil: number;
}

/** ws's send options of every relayed frame: one object, not one per frame. */
const TEXT_FRAME = Object.freeze({ binary: false });

/** A handshake join's text, refused (thrown, so parseHandshakeJoin answers null) past `maxDepth`, like any frame. */
function decodeHandshakeJoin(encoded: string, maxDepth: number): string {
  const text = Buffer.from(encoded, 'base64url').toString('utf8');
  if (!jsonDepthWithin(text, maxDepth)) throw new PlatformError('INVALID_MESSAGE', `the join nests deeper than ${maxDepth} levels`);
  return text;
}

/** The `userInfo` of every member that set none: one frozen object, not one per member. */
const NO_USER_INFO: EventPayload = Object.freeze({});

function isEmpty(value: EventPayload): boolean {
  for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key)) return false;
  return true;
}

/** The emptiest shard first (most room left for the default capacity), then by name: a stable order for a bounded `info`. */
const byRoomLeft = (a: ShardInfo, b: ShardInfo): number =>
  a.numConnectedClients - b.numConnectedClients || (a.shardName < b.shardName ? -1 : a.shardName > b.shardName ? 1 : 0);

const toWire = (member: MemberRecord): MemberWire => ({
  clientId: member.clientId,
  userInfo: member.userInfo,
  userId: member.userId,
  connectedAt: member.connectedAt,
  peerId: member.peerId,
});

/** Whole ms since the process started (monotonic): a small integer for 12 days, then a boxed one (still right). */
const clock = (): number => Math.floor(performance.now());

/** A bucket's level at `now` ({@link clock}): its level at its stamp plus the refill since, at most `2 × rate` tokens. */
function levelAt(connection: Connection, which: 'event' | 'message', rate: number, now: number): number {
  // Two branches, not a destructured pair: this runs for every frame, and a pair is an array.
  if (which === 'event') return Math.min(rate * 2000, connection.eventMilliTokens + (now - connection.eventStamp) * rate);
  return Math.min(rate * 2000, connection.messageMilliTokens + (now - connection.messageStamp) * rate);
}

/**
 * Takes a token from a bucket refilled at `rate` per second up to `2 × rate`;
 * false when empty. `now` is {@link clock}. Counted in thousandths of a
 * token: `rate` per second is `rate` thousandths per ms, so it stays integer.
 */
function take(connection: Connection, which: 'event' | 'message', rate: number, now: number): boolean {
  const tokensKey = which === 'event' ? 'eventMilliTokens' : 'messageMilliTokens';
  const stampKey = which === 'event' ? 'eventStamp' : 'messageStamp';
  const tokens = levelAt(connection, which, rate, now);
  connection[stampKey] = now;
  if (tokens < 1000) {
    connection[tokensKey] = tokens;
    return false;
  }
  connection[tokensKey] = tokens - 1000;
  return true;
}

/**
 * The buckets' levels now, to save with the session; undefined when both are
 * full. Not saving a full bucket is exact: an older save plus the refill of
 * the time since is never less than full then, because a bucket only empties
 * by taking.
 */
function bucketLevels(connection: Connection, limits: SignalingLimits, now: number): RateBuckets | undefined {
  const eventMilliTokens = levelAt(connection, 'event', limits.maxEventsPerSecond, now);
  const messageMilliTokens = levelAt(connection, 'message', limits.maxMessagesPerSecond, now);
  if (eventMilliTokens >= limits.maxEventsPerSecond * 2000 && messageMilliTokens >= limits.maxMessagesPerSecond * 2000) return undefined;
  return { eventMilliTokens, messageMilliTokens, savedAtMs: Date.now() };
}

/**
 * A resumed client continues from its saved levels plus the refill of the
 * time since (wall clock: nodes share no other; a save stamped in the future,
 * a skewed clock, refills nothing), capped at this node's bucket sizes.
 */
function restoreBuckets(connection: Connection, saved: RateBuckets, limits: SignalingLimits, now: number): void {
  const elapsedMs = Math.max(0, Date.now() - saved.savedAtMs);
  const level = (milliTokens: number, rate: number): number => Math.floor(Math.min(rate * 2000, Math.max(0, milliTokens) + elapsedMs * rate));
  connection.eventMilliTokens = level(saved.eventMilliTokens, limits.maxEventsPerSecond);
  connection.messageMilliTokens = level(saved.messageMilliTokens, limits.maxMessagesPerSecond);
  connection.eventStamp = connection.messageStamp = now;
}

/**
 * Creates and starts a signaling server. Resolve `ready` before using `url`.
 *
 * @example
 * const server = createSignalingServer({ port: 0, projects: { demo: process.env.DEMO_TOKEN! } });
 * await server.ready;
 * console.log(server.url);
 */
export function createSignalingServer(options: SignalingServerOptions): SignalingServer {
  const limits: SignalingLimits = { ...DEFAULT_LIMITS, ...options.limits };
  if (limits.maxUserInfoBytes > MAX_USER_INFO_BYTES) throw new PlatformError('INVALID_CONFIG', `maxUserInfoBytes is at most ${MAX_USER_INFO_BYTES}`);
  const joinsPerMinute = limits.maxJoinsPerAddressPerMinute;
  if (!(joinsPerMinute === Infinity || (Number.isInteger(joinsPerMinute) && joinsPerMinute >= 0))) {
    throw new PlatformError('INVALID_CONFIG', 'maxJoinsPerAddressPerMinute is a whole number (0 or Infinity: no limit)');
  }
  const joinLimited = joinsPerMinute > 0 && joinsPerMinute !== Infinity;
  const shardsPerMinute = limits.maxShardsPerAddressPerMinute;
  if (!(shardsPerMinute === Infinity || (Number.isInteger(shardsPerMinute) && shardsPerMinute >= 0))) {
    throw new PlatformError('INVALID_CONFIG', 'maxShardsPerAddressPerMinute is a whole number (0 or Infinity: no limit)');
  }
  const shardsLimited = shardsPerMinute > 0 && shardsPerMinute !== Infinity;
  const maxUnjoined = limits.maxUnjoinedSocketsPerAddress;
  if (!(maxUnjoined === Infinity || (Number.isInteger(maxUnjoined) && maxUnjoined >= 0))) {
    throw new PlatformError('INVALID_CONFIG', 'maxUnjoinedSocketsPerAddress is a whole number (0 or Infinity: no limit)');
  }
  const unjoinedLimited = maxUnjoined > 0 && maxUnjoined !== Infinity;
  /** Whether a socket's address is read at all (it costs a header parse per upgrade). */
  const addressNeeded = joinLimited || shardsLimited || unjoinedLimited;
  for (const key of ['maxJsonDepth', 'maxRefusals', 'maxPeerMessagesPerSecond', 'maxInfoShards'] as const) {
    const value = limits[key];
    if (!(value === Infinity || (Number.isInteger(value) && value >= 1))) throw new PlatformError('INVALID_CONFIG', `${key} is a whole number of at least 1 (or Infinity)`);
  }
  const trustProxy = options.trustProxy ?? 0;
  if (!(Number.isInteger(trustProxy) && trustProxy >= 0)) throw new PlatformError('INVALID_CONFIG', 'trustProxy is a number of proxies (0: none)');
  const projects = options.projects;
  const ownStore = options.store === undefined;
  const log = options.log ?? (() => {});
  const store: ShardStore =
    options.store ??
    (options.redis !== undefined
      ? createRedisStore({
          redis: options.redis,
          nodeId: options.nodeId ?? `node-${randomBytes(6).toString('base64url')}`,
          ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
          log,
        })
      : createMemoryStore());
  // Set when the store is shared by many nodes: traffic for other nodes goes through it.
  const nodeId = store.nodeId ?? null;
  const secretStore = options.secretStore ?? (options.redis !== undefined ? createRedisSecretStore({ redis: options.redis, log }) : undefined);
  if (options.redis !== undefined && options.secretKey === undefined) {
    log('platform-kit: running on Redis without secretKey: every node must share the same <dataDir>/server.key, or resumes across nodes fail');
  }
  const dataDir = resolvePath(options.dataDir ?? '.platform-data');
  // Made during `ready`, before the server listens: no request or socket ever sees them unset.
  let services: ServicesRouter | undefined;
  let resumeTokens: ResumeTokens | undefined;
  const running = (): { services: ServicesRouter; resumeTokens: ResumeTokens } => {
    if (!services || !resumeTokens) throw new PlatformError('NOT_CONNECTED', 'the server is not ready yet: await server.ready');
    return { services, resumeTokens };
  };
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? 10_000;
  const reconnectGraceMs = options.reconnectGraceMs ?? 30_000;
  const joinTimeoutMs = options.joinTimeoutMs ?? 10_000;
  const presenceIntervalMs = options.presenceIntervalMs ?? 25;
  if (!(presenceIntervalMs >= 0 && presenceIntervalMs <= 60_000)) throw new PlatformError('INVALID_CONFIG', 'presenceIntervalMs is 0 to 60,000 ms');
  const meshMaxMembers = options.meshMaxMembers ?? 16;
  // Resume tokens carry this: a client back after a restart is told apart from one whose grace ran out.
  const bootId = randomBytes(6).toString('base64url');
  const wireLimits: WireLimits = {
    maxPayloadBytes: limits.maxPayloadBytes,
    maxEventsPerSecond: limits.maxEventsPerSecond,
    maxUserInfoBytes: limits.maxUserInfoBytes,
    meshMaxMembers,
    reconnectGraceMs,
    heartbeatIntervalMs,
  };

  // Open control sockets: those not joined (yet) here, the joined ones in their hub's `locals`
  // (no second set of 10,000 entries), the count beside.
  const unjoined = new Set<Connection>();
  /** Unjoined sockets per address (SignalingLimits.maxUnjoinedSocketsPerAddress); only addresses with one are here. */
  const unjoinedByAddress = new Map<string, number>();
  /** Takes the connection out of its address's unjoined count (it joined, or closed first). */
  function releaseUnjoined(connection: Connection): void {
    if (!connection.unjoinedCounted) return;
    connection.unjoinedCounted = false;
    const left = (unjoinedByAddress.get(connection.address) ?? 1) - 1;
    if (left > 0) unjoinedByAddress.set(connection.address, left);
    else unjoinedByAddress.delete(connection.address);
  }
  let connectionCount = 0;
  function* liveConnections(): Generator<Connection> {
    yield* unjoined;
    for (const hub of hubs.values()) yield* hub.locals.values();
  }
  const hubs = new Map<string, Hub>();
  /** Clients within their grace period, by `project\0shard\0client`. */
  const offline = new Map<string, Connection>();
  const peers = new PeerSignaling(
    nodeId === null
      ? null
      : (scope, dst, frame) => {
          const at = scope.indexOf('\u0000');
          store.publish(scope.slice(0, at), scope.slice(at + 1), { kind: 'peer', dst, frame });
        },
    {
      maxJsonDepth: limits.maxJsonDepth,
      maxMessagesPerSecond: limits.maxPeerMessagesPerSecond,
      maxRefusals: limits.maxRefusals,
      maxBufferedBytes: limits.maxBufferedBytes,
    },
    log,
  );
  const counters = { joins: 0, eventsIn: 0, deliveries: 0, errors: 0, invalidFrames: 0, joinsRateLimited: 0, shardsRateLimited: 0, disconnectedForRefusals: 0, upgradesRefused: 0 };
  // The join allowance of a store that keeps none (a custom store): this process's own.
  const localJoins = store.takeJoin ? null : new JoinLimiter();

  const shardKey = (projectId: string, shardName: string): string => `${projectId}\u0000${shardName}`;
  const memberKey = (c: Connection): string => `${c.projectId}\u0000${c.shardName}\u0000${c.clientId}`;

  // ─── sending ──────────────────────────────────────────────────────────────

  function send(connection: Connection, message: ServerMessage): void {
    if (writable(connection)) connection.socket.send(JSON.stringify(message));
  }
  /**
   * Whether a frame may be written to the connection's socket now. Every send
   * asks: a socket over {@link SignalingLimits.maxBufferedBytes} (a client
   * that does not read) is terminated instead, so no answer, presence or event
   * can pile up in the server's memory for it; it reconnects and resumes.
   */
  function writable(connection: Connection): boolean {
    const socket = connection.socket;
    if (socket.readyState !== socket.OPEN) return false;
    if (socket.bufferedAmount <= limits.maxBufferedBytes) return true;
    log(`platform-kit: closing ${connection.clientId || 'a socket'}: ${socket.bufferedAmount} bytes unsent`);
    socket.terminate();
    return false;
  }
  function sendRaw(connection: Connection, frame: Buffer): void {
    const socket = connection.socket;
    if (!writable(connection)) return;
    // The turn's first frame leaves at once; every later one waits for the end of the turn.
    if (endOfTurnScheduled) corkStream((socket as unknown as { _socket?: CorkableStream })._socket);
    else scheduleEndOfTurn();
    socket.send(frame, TEXT_FRAME);
    counters.deliveries++;
  }

  // Fan-out batching: every socket written to during one turn of the event loop is corked and
  // uncorked once after it (setImmediate runs after the turn's I/O callbacks), so a recipient of
  // many events gets them in one write syscall instead of one each. ws exposes no cork of its
  // own; its underlying net.Socket (`_socket`) is the documented Node stream that has one.
  // The one exception is the turn's very first frame: it is written at once, so a lone event
  // (one sender, one receiver: what latency is made of) does not wait for the end of the turn,
  // and under load batching costs at most one extra write per turn, not one per socket.
  // A socket being upgraded is corked too: its 101 and the `joined` of a handshake join leave
  // in one write.
  const corked = new Set<CorkableStream>();
  function corkStream(stream: CorkableStream | undefined): void {
    if (!stream || corked.has(stream)) return;
    stream.cork();
    corked.add(stream);
    scheduleEndOfTurn();
  }

  // Presence coalescing (see SignalingServerOptions.presenceIntervalMs): a shard's changes wait
  // in its hub and leave as one frame, at the end of the turn (leading edge: a lone change is
  // not delayed) or, within presenceIntervalMs of the shard's last presence frame, when the
  // window timer fires (a burst). A hub's waiting changes leave before any event of that shard
  // (onShardMessage), so order per shard is unchanged: a member is always listed before its
  // first event arrives.
  /** Hubs whose changes leave at the end of this turn. */
  const dueHubs = new Set<Hub>();
  /** Hubs whose changes leave when the window timer fires. */
  const windowedHubs = new Set<Hub>();
  /** Orders attaches and presence changes on this node (see {@link PendingPresence.at}). */
  let presenceClock = 0;
  let presenceTimer: ReturnType<typeof setTimeout> | undefined;
  let endOfTurnScheduled = false;
  function scheduleEndOfTurn(): void {
    if (endOfTurnScheduled) return;
    endOfTurnScheduled = true;
    setImmediate(endOfTurn);
  }
  function queuePresence(hub: Hub, change: PendingPresence): void {
    if (hub.presence === null) {
      hub.presence = [];
      if (presenceIntervalMs === 0 || performance.now() >= hub.quietUntil) {
        dueHubs.add(hub);
        scheduleEndOfTurn();
      } else {
        windowedHubs.add(hub);
        presenceTimer ??= setTimeout(flushWindowedHubs, presenceIntervalMs);
      }
    }
    hub.presence.push(change);
  }
  function flushWindowedHubs(): void {
    presenceTimer = undefined;
    for (const hub of windowedHubs) flushPresence(hub);
    windowedHubs.clear();
  }
  function endOfTurn(): void {
    for (const hub of dueHubs) flushPresence(hub);
    dueHubs.clear();
    for (const stream of corked) stream.uncork();
    corked.clear();
    // Reset last: flushing corks sockets, and they are uncorked just above, not one turn later.
    endOfTurnScheduled = false;
  }

  function flushPresence(hub: Hub): void {
    const changes = hub.presence;
    if (changes === null) return;
    hub.presence = null;
    if (presenceIntervalMs > 0) hub.quietUntil = performance.now() + presenceIntervalMs;
    const first = changes[0]!;
    if (changes.length === 1) {
      const frame = Buffer.from(first.frame);
      for (const c of hub.locals.values()) if (c.attachedAt < first.at && c.clientId !== first.except) sendRaw(c, frame);
      return;
    }
    let batch: Buffer | undefined;
    const singles: (Buffer | undefined)[] = [];
    const excepted = new Set<string | null>();
    for (const change of changes) excepted.add(change.except);
    for (const c of hub.locals.values()) {
      if (c.version >= 2 && c.attachedAt < first.at && !excepted.has(c.clientId)) {
        // The common case: every change is for this member; one frame serialized once for all.
        batch ??= batchFrame(changes);
        sendRaw(c, batch);
        continue;
      }
      // The joiner or leaver itself, a member attached within this turn, or a v1 client.
      const mine = changes.filter((change) => c.attachedAt < change.at && c.clientId !== change.except);
      if (mine.length === 0) continue;
      if (c.version >= 2 && mine.length > 1) {
        sendRaw(c, batchFrame(mine));
        continue;
      }
      for (const change of mine) {
        const index = changes.indexOf(change);
        sendRaw(c, (singles[index] ??= Buffer.from(change.frame)));
      }
    }
  }

  function batchFrame(changes: readonly PendingPresence[]): Buffer {
    // The single-change frames are already JSON: joined, not parsed and serialized again.
    return Buffer.from(`{"type":"presence","op":"batch","changes":[${changes.map((change) => change.frame).join(',')}]}`);
  }

  /** Answers a client frame with an error. Every answer but a server-side failure (UNAVAILABLE, INTERNAL) is a refusal. */
  function fail(connection: Connection, code: ErrorCode, message: string, ref: { id?: number; seq?: number } = {}): void {
    counters.errors++;
    if (code !== 'UNAVAILABLE' && code !== 'INTERNAL' && !refusalAllowed(connection)) return;
    send(connection, { type: 'error', ...ref, error: serializeError(new PlatformError(code, message)) });
  }

  /**
   * Counts one refusal against {@link SignalingLimits.maxRefusals}; false (and
   * the socket closes with 4029) once the client is past it. The allowance
   * refills at a tenth of its size per second.
   */
  function refusalAllowed(connection: Connection): boolean {
    const max = limits.maxRefusals;
    if (max === Infinity) return true;
    const now = clock();
    const level = Math.min(max * 1000, connection.refusalMilliTokens + (now - connection.refusalStamp) * (max / 10));
    connection.refusalStamp = now;
    if (level >= 1000) {
      connection.refusalMilliTokens = level - 1000;
      return true;
    }
    connection.refusalMilliTokens = level;
    counters.disconnectedForRefusals++;
    log(`platform-kit: closing ${connection.clientId || 'a socket'}: more than ${max} refused frames`);
    closeSoon(connection.socket, CLOSE_CODES.TOO_MANY_REFUSALS, 'RATE_LIMITED: too many refused frames');
    return false;
  }

  /** The door's one catch (ControlSocketHandlers.threw): a handler bug answers INTERNAL and is logged, never more. */
  function threw(connection: Connection, error: unknown, during: string): void {
    counters.errors++;
    log(`platform-kit: a ${during} handler failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    try {
      send(connection, { type: 'error', error: serializeError(new PlatformError('INTERNAL', 'the server failed to handle that frame')) });
    } catch {
      connection.socket.terminate();
    }
  }

  // ─── shards on this node ──────────────────────────────────────────────────

  function onShardMessage(hub: Hub, message: ShardMessage): void {
    if (message.kind === 'peer') return peers.deliverRemote(hub.key, message.dst, message.frame);
    if (message.kind === 'takeover') {
      if (message.node === nodeId) return;
      // The client resumed on another node: a socket of it here is half open and must go without a trace.
      const stale = hub.locals.get(message.clientId);
      if (stale) {
        detach(stale);
        stale.state = 'closed';
        if (stale.peerId) peers.revoke(stale.peerId);
        stale.socket.terminate();
      }
      return;
    }
    if (message.kind === 'presence') return queuePresence(hub, { frame: message.frame, except: message.except, at: ++presenceClock });
    // An event never overtakes a presence change published before it.
    if (hub.presence !== null) flushPresence(hub);
    const frame = Buffer.from(message.frame);
    const { from, to } = message;
    if (to === null) {
      for (const c of hub.locals.values()) if (c.clientId !== from) sendRaw(c, frame);
      return;
    }
    // Recipients name client ids or verified user ids; a sender never receives its own event.
    const names = to.length > 8 ? new Set(to) : null;
    const has = (name: string): boolean => (names ? names.has(name) : to.includes(name));
    for (const c of hub.locals.values()) {
      if (c.clientId !== from && (has(c.clientId) || (c.userId !== null && has(c.userId)))) sendRaw(c, frame);
    }
  }

  /** Adds a joined connection to its shard's hub (made on first use); returns the hub's key. */
  function attach(connection: Connection): string {
    const key = shardKey(connection.projectId, connection.shardName);
    let hub = hubs.get(key);
    if (!hub) {
      // One subscription per shard and node, not per socket.
      const created: Hub = { key, locals: new Map(), unsubscribe: () => {}, presence: null, quietUntil: 0 };
      created.unsubscribe = store.subscribe(connection.projectId, connection.shardName, (message) => onShardMessage(created, message));
      hubs.set(key, created);
      hub = created;
    }
    connection.attachedAt = ++presenceClock;
    unjoined.delete(connection);
    releaseUnjoined(connection);
    hub.locals.set(connection.clientId, connection);
    return hub.key;
  }

  function detach(connection: Connection): void {
    const key = shardKey(connection.projectId, connection.shardName);
    const hub = hubs.get(key);
    if (!hub || hub.locals.get(connection.clientId) !== connection) return;
    hub.locals.delete(connection.clientId);
    if (hub.locals.size === 0) {
      hub.unsubscribe();
      hubs.delete(key);
    }
  }

  function publishPresence(connection: Connection, frame: ServerMessage, except: string | null): void {
    store.publish(connection.projectId, connection.shardName, { kind: 'presence', frame: JSON.stringify(frame), except });
  }

  /** Removes a client for good: from the store, its peer id, and (when still listed) from presence. */
  async function finalize(connection: Connection, announce: boolean): Promise<void> {
    clearTimeout(connection.graceTimer);
    offline.delete(memberKey(connection));
    connection.state = 'closed';
    if (connection.peerId) peers.revoke(connection.peerId);
    // Redis out of reach: the member stays until this node's lease runs out and another node sweeps it.
    const removed = await store.leave(connection.projectId, connection.shardName, connection.clientId).catch(storeError);
    if (removed && announce) publishPresence(connection, { type: 'presence', op: 'remove', clientId: connection.clientId }, connection.clientId);
  }

  // ─── socket lifecycle ─────────────────────────────────────────────────────

  /** A store call whose failure nobody waits for: logged (Redis down is not a crash). */
  function storeError(error: unknown): null {
    if (closing === null) log(`platform-kit: store: ${String(error)}`);
    return null;
  }

  /**
   * Saves a limited client's buckets with its session, at most once a second:
   * only refusals pay for it, never an admitted event. So a resume after
   * kill -9 of this node (no goodbye, no save on close) still starts nearly
   * empty; a save more than the refill time (2 s) old would be a full bucket
   * anyway, which is why nothing is saved on a timer.
   */
  function saveBuckets(connection: Connection, now: number): void {
    if (connection.state !== 'joined' || now - connection.bucketsSavedAt < 1000) return;
    connection.bucketsSavedAt = now;
    const rateBuckets = bucketLevels(connection, limits, now);
    if (rateBuckets) void store.update(connection.projectId, connection.shardName, connection.clientId, { rateBuckets }).catch(storeError);
  }

  /**
   * Takes one new shard from the connection's address allowance
   * (SignalingLimits.maxShardsPerAddressPerMinute), counted like joins and in
   * the same place (the store's GCRA under its own key), so it holds across nodes.
   */
  async function admitNewShard(connection: Connection): Promise<boolean> {
    const key = `shard ${connection.address}`;
    try {
      return localJoins ? localJoins.take(key, shardsPerMinute) : await store.takeJoin!(key, shardsPerMinute);
    } catch {
      return true; // fails open with the join limit, for the same reason (admitJoin)
    }
  }

  /** Logged once per outage, not once per join. */
  let joinLimitFailing = false;
  /** Takes one join of the connection's address (SignalingLimits.maxJoinsPerAddressPerMinute). */
  async function admitJoin(connection: Connection): Promise<boolean> {
    if (!joinLimited) return true;
    try {
      const admitted = localJoins ? localJoins.take(connection.address, joinsPerMinute) : await store.takeJoin!(connection.address, joinsPerMinute);
      if (joinLimitFailing) log('platform-kit: the join limit answers again');
      joinLimitFailing = false;
      return admitted;
    } catch (error) {
      // Fail open: a store blip must not lock every client out; a join that needs the
      // store answers UNAVAILABLE right after, which clients retry.
      if (!joinLimitFailing) log(`platform-kit: join limit unavailable, admitting joins meanwhile: ${String(error)}`);
      joinLimitFailing = true;
      return true;
    }
  }

  function onClose(connection: Connection): void {
    // Once per socket: ws emits `close` once.
    unjoined.delete(connection);
    releaseUnjoined(connection);
    connectionCount--;
    if (connection.state !== 'joined') {
      if (connection.state !== 'offline') connection.state = 'closed';
      return;
    }
    detach(connection);
    if (connection.leaving) {
      void finalize(connection, true);
      return;
    }
    // Presence follows the socket at once; the id and place are kept for the grace period.
    connection.state = 'offline';
    offline.set(memberKey(connection), connection);
    // The buckets go with the session: a resume anywhere continues from them (SignalingLimits).
    const rateBuckets = bucketLevels(connection, limits, clock());
    void store.update(connection.projectId, connection.shardName, connection.clientId, rateBuckets ? { online: false, rateBuckets } : { online: false }).catch(storeError);
    publishPresence(connection, { type: 'presence', op: 'remove', clientId: connection.clientId }, connection.clientId);
    // A short visit (a join and a drop within seconds, no event sent: what a shard-spamming loop
    // does) holds its place only briefly, so such joins cannot keep the project's shards taken.
    const shortVisit = connection.lastSeq === 0 && clock() - connection.openedAt < SHORT_VISIT_MS;
    connection.graceTimer = setTimeout(() => {
      if (connection.state === 'offline') void finalize(connection, false);
    }, shortVisit ? Math.min(reconnectGraceMs, SHORT_VISIT_GRACE_MS) : reconnectGraceMs);
    connection.graceTimer.unref?.();
  }

  /**
   * The door of the control socket: every frame passes here, in this order:
   * open socket, binary, size, depth, parse and check (protocol/signaling.ts),
   * then one handler per frame type. What is refused here counts against
   * SignalingLimits.maxRefusals; what a handler throws is caught one level up
   * (controlSocketClass → threw).
   */
  function onMessage(connection: Connection, data: RawData, isBinary: boolean): void {
    connection.alive = true;
    // Closing (refused too often, left, over its buffer): what it still sends is not read.
    if (connection.socket.readyState !== connection.socket.OPEN) return;
    const bytes = Buffer.isBuffer(data) ? data.length : Array.isArray(data) ? data.reduce((sum, part) => sum + part.length, 0) : data.byteLength;
    const now = clock();
    if (isBinary) return invalid(connection, now, 'binary frames are not part of the protocol');
    if (bytes > limits.maxPayloadBytes + FRAME_ENVELOPE_BYTES) return refuseFrame(connection, now, 'PAYLOAD_TOO_LARGE', `frame of ${bytes} bytes is over the limit`);
    const text = String(data);
    // Before the parser: nothing may re-serialize or walk a frame deeper than this (JSON.stringify throws past a few thousand).
    if (!jsonDepthWithin(text, limits.maxJsonDepth)) return invalid(connection, now, `frame nests deeper than ${limits.maxJsonDepth} levels`);
    const message = parseClientMessage(parseJsonObject(text));
    if (message === null) return invalid(connection, now, 'malformed frame');
    // The hot path: an event goes on with its text, which the relayed frame is spliced from.
    if (message.type === 'emit') return onEmit(connection, message, text, bytes, now);
    onClientMessage(connection, message, bytes, now);
  }

  /** A checked client message, from a frame or (a join) from the handshake. */
  function onClientMessage(connection: Connection, message: ClientMessage, bytes: number, now: number): void {
    // Without its text (none here: the handshake carries only joins) an event is serialized anew.
    if (message.type === 'emit') return onEmit(connection, message, '', bytes, now);
    if (!take(connection, 'message', limits.maxMessagesPerSecond, now)) {
      saveBuckets(connection, now);
      // A ping over the rate is not answered (its clock sample would be late anyway), but it is refused all the same.
      if (message.type !== 'ping') fail(connection, 'RATE_LIMITED', 'too many messages', { id: message.id });
      else refusalAllowed(connection);
      return;
    }
    switch (message.type) {
      case 'ping':
        return send(connection, { type: 'pong', id: message.id, c: message.c, s: preciseNow() });
      case 'join':
        return void onJoin(connection, message).catch((error: unknown) => {
          log(`platform-kit: join failed: ${String(error)}`);
          if (connection.state === 'joining') connection.state = 'new';
          // UNAVAILABLE (Redis out of reach) tells the client to retry; anything else is a bug here.
          const code: ErrorCode = isPlatformError(error) && error.code === 'UNAVAILABLE' ? 'UNAVAILABLE' : 'INTERNAL';
          fail(connection, code, code === 'UNAVAILABLE' ? 'the server cannot reach its state store; retry shortly' : 'join failed', { id: message.id });
        });
      default:
        if (connection.state !== 'joined') return fail(connection, 'NOT_CONNECTED', 'join first', { id: message.id });
    }
    switch (message.type) {
      case 'identify':
        return void running().services.tokens.verify(connection.projectId, message.token).then(
          (user) => setUser(connection, message.id, { userId: user.id }).catch((error: unknown) => storeFailed(connection, message.id, error)),
          (error: unknown) => send(connection, { type: 'error', id: message.id, error: serializeError(error) }),
        );
      case 'userInfo': {
        const size = utf8Length(JSON.stringify(message.userInfo));
        if (size > limits.maxUserInfoBytes) return fail(connection, 'VALUE_TOO_LARGE', `userInfo is ${size} bytes, over ${limits.maxUserInfoBytes}`, { id: message.id });
        return void setUser(connection, message.id, { userInfo: message.userInfo }).catch((error: unknown) => storeFailed(connection, message.id, error));
      }
      case 'info':
        return void store.shards(connection.projectId).then(
          (shards) => sendInfo(connection, message.id, shards),
          (error: unknown) => storeFailed(connection, message.id, error),
        );
      case 'leave':
        connection.leaving = true;
        send(connection, { type: 'ok', id: message.id });
        connection.socket.close(1000, 'left');
        return;
    }
  }

  /**
   * Answers `info` with at most {@link SignalingLimits.maxInfoShards} shards,
   * the emptiest first, and charges the client a message token per
   * {@link INFO_BYTES_PER_TOKEN} bytes of the answer: 30 bytes in never buy
   * 100 KB out for free.
   */
  function sendInfo(connection: Connection, id: number, all: readonly ShardInfo[]): void {
    const max = limits.maxInfoShards;
    const shards = all.length <= max ? all : [...all].sort(byRoomLeft).slice(0, max);
    const text = JSON.stringify({ type: 'info', id, shards } satisfies ServerMessage);
    const extra = Math.floor(text.length / INFO_BYTES_PER_TOKEN);
    if (extra > 0) {
      const now = clock();
      connection.messageMilliTokens = Math.max(0, levelAt(connection, 'message', limits.maxMessagesPerSecond, now) - extra * 1000);
      connection.messageStamp = now;
    }
    if (writable(connection)) connection.socket.send(text);
  }

  /** Answers a request whose store call failed: UNAVAILABLE while Redis is out of reach, else INTERNAL. */
  function storeFailed(connection: Connection, id: number, error: unknown): void {
    log(`platform-kit: store: ${String(error)}`);
    const code: ErrorCode = isPlatformError(error) && error.code === 'UNAVAILABLE' ? 'UNAVAILABLE' : 'INTERNAL';
    fail(connection, code, code === 'UNAVAILABLE' ? 'the server cannot reach its state store; retry shortly' : 'the request failed', { id });
  }

  function invalid(connection: Connection, now: number, why: string): void {
    counters.invalidFrames++;
    refuseFrame(connection, now, 'INVALID_MESSAGE', why);
  }

  /**
   * Refuses a frame that never reached a handler. Answers are rate limited
   * too (a flood of junk gets silence, not an echo flood), and answered or not
   * it is a refusal: a flood of junk ends with the socket.
   */
  function refuseFrame(connection: Connection, now: number, code: ErrorCode, why: string): void {
    if (take(connection, 'message', limits.maxMessagesPerSecond, now)) fail(connection, code, why);
    else refusalAllowed(connection);
  }

  async function setUser(connection: Connection, id: number, patch: { userId?: string; userInfo?: EventPayload }): Promise<void> {
    if (connection.state !== 'joined') return fail(connection, 'NOT_CONNECTED', 'not connected', { id });
    if (patch.userId !== undefined) connection.userId = patch.userId;
    const member = await store.update(connection.projectId, connection.shardName, connection.clientId, patch);
    send(connection, { type: 'ok', id, userId: connection.userId });
    // Everyone, the client itself included, sees the new list.
    if (member) publishPresence(connection, { type: 'presence', op: 'update', member: toWire(member) }, null);
  }

  function onEmit(connection: Connection, message: EmitMessage, text: string, bytes: number, now: number): void {
    const seq = message.seq;
    if (connection.state !== 'joined') return fail(connection, 'NOT_CONNECTED', 'join first', { seq });
    if (message.re !== true) {
      // A resend after a reconnection: already relayed once.
      if (seq <= connection.lastSeq) return;
      connection.lastSeq = seq;
    }
    // Otherwise an event a dead data channel did not deliver, resent to its one receiver: it went
    // by the mesh, so lastSeq says nothing about it, and the receiver drops it if it had it.
    counters.eventsIn++;
    if (!take(connection, 'event', limits.maxEventsPerSecond, now)) {
      saveBuckets(connection, now);
      return fail(connection, 'RATE_LIMITED', `more than ${limits.maxEventsPerSecond} events per second`, { seq });
    }
    if (bytes > limits.maxPayloadBytes) {
      const size = utf8Length(JSON.stringify(message.payload));
      if (size > limits.maxPayloadBytes) return fail(connection, 'PAYLOAD_TOO_LARGE', `payload is ${size} bytes, over ${limits.maxPayloadBytes}`, { seq });
    }
    // Spliced from the sender's text when safe: the payload is not serialized again.
    const frame = relayedEventFrame(text, message, connection.clientId, connection.userId);
    store.publish(connection.projectId, connection.shardName, { kind: 'event', from: connection.clientId, to: message.to ?? null, frame });
  }

  // ─── join and resume ──────────────────────────────────────────────────────

  async function onJoin(connection: Connection, message: JoinMessage): Promise<void> {
    const id = message.id;
    if (connection.state !== 'new') return fail(connection, 'INVALID_MESSAGE', 'already joined', { id });
    if (message.v < MIN_SIGNALING_VERSION || message.v > SIGNALING_VERSION) {
      return fail(connection, 'UNSUPPORTED', `protocol version ${message.v}; this server speaks ${MIN_SIGNALING_VERSION} to ${SIGNALING_VERSION}`, { id });
    }
    const project = projectOf(message.projectId);
    if (project === undefined) return refuse(connection, 'UNAUTHORIZED', `unknown project "${message.projectId}"`, id);
    if (message.kind === 'backend' && (message.projectToken === undefined || !sameSecret(message.projectToken, project.token))) {
      return refuse(connection, 'UNAUTHORIZED', 'a backend client needs its project token', id);
    }
    // Browsers send the page's origin with the upgrade and no page can forge it; backends are not pages.
    if (message.kind === 'browser' && project.allowedOrigins !== undefined && !project.allowedOrigins.includes(connection.origin)) {
      const from = connection.origin === '' ? 'a socket without an Origin' : `origin ${connection.origin}`;
      return refuse(connection, 'ORIGIN_REFUSED', `${from} may not join project "${message.projectId}"`, id, CLOSE_CODES.ORIGIN_REFUSED);
    }
    if (message.kind === 'browser' && project.requireUserToken === true && message.authorization === undefined) {
      return refuse(connection, 'UNAUTHORIZED', `project "${message.projectId}" admits identified users only: connect with a user token`, id);
    }
    if (message.shardName !== undefined && !isShardName(message.shardName)) {
      return fail(connection, 'INVALID_NAME', 'a shard name is 1 to 64 of A-Z a-z 0-9 _ -, starting with a letter or digit', { id });
    }
    const requested = message.maxConnectionsPerShard ?? DEFAULT_MAX_CONNECTIONS_PER_SHARD;
    if (requested < 1 || requested > MAX_CONNECTIONS_PER_SHARD_LIMIT) {
      return fail(connection, 'INVALID_ARGUMENT', `maxConnectionsPerShard must be 1 to ${MAX_CONNECTIONS_PER_SHARD_LIMIT}`, { id });
    }
    // The project's ceiling (SignalingProject.maxConnectionsPerShard) lowers what a client asks for.
    const max = Math.min(requested, project.maxConnectionsPerShard ?? MAX_CONNECTIONS_PER_SHARD_LIMIT);
    // An empty userInfo (what most joins carry) is shared, not kept once per member.
    const userInfo = message.userInfo === undefined || isEmpty(message.userInfo) ? NO_USER_INFO : message.userInfo;
    if (userInfo !== NO_USER_INFO && utf8Length(JSON.stringify(userInfo)) > limits.maxUserInfoBytes) return fail(connection, 'VALUE_TOO_LARGE', 'userInfo is over the limit', { id });
    connection.state = 'joining';
    connection.version = message.v;
    connection.projectId = message.projectId;
    connection.kind = message.kind;
    connection.maxConnectionsPerShard = max;
    // Counted on every node at once (the store's allowance); 'joining' already refuses a second join meanwhile.
    if (joinLimited && !(await admitJoin(connection))) {
      counters.joinsRateLimited++;
      return refuse(connection, 'RATE_LIMITED', `more than ${joinsPerMinute} joins per minute from this address; retry later`, id);
    }

    let userId: string | null = null;
    let identifyError: ReturnType<typeof serializeError> | null = null;
    if (message.authorization !== undefined) {
      try {
        userId = (await running().services.tokens.verify(message.projectId, message.authorization)).id;
      } catch (error) {
        // The client stays connected, unidentified, and is told why; unless the project admits only identified users.
        // UNAUTHORIZED, whatever the token's fault: the client stops reconnecting with it (a retry cannot help).
        if (message.kind === 'browser' && project.requireUserToken === true) {
          return refuse(connection, 'UNAUTHORIZED', `project "${message.projectId}" admits identified users only: ${error instanceof Error ? error.message : String(error)}`, id);
        }
        identifyError = serializeError(error);
      }
    }

    const resumed = message.resume ? await resume(connection, message, userId, userInfo) : null;
    if (connection.state !== 'joining') return; // the socket closed meanwhile (resume cleaned up)
    let members: readonly MemberRecord[];
    if (resumed) {
      members = resumed;
    } else {
      connection.clientId = randomId();
      connection.userId = userId;
      issuePeerId(connection);
      const outcome = await joinStore(connection, message.shardName, userInfo);
      if (!outcome.ok) {
        connection.state = 'new';
        const code: ErrorCode = outcome.reason === 'CLIENT_ID_TAKEN' ? 'INTERNAL' : outcome.reason;
        return fail(connection, code, code === 'SHARD_FULL' ? `shard "${message.shardName ?? ''}" is full` : 'the project has too many shards', { id });
      }
      // Alone in it: this join opened the shard, and pays for it from its address's allowance.
      if (shardsLimited && outcome.members.length === 1 && !(await admitNewShard(connection))) {
        await store.leave(connection.projectId, outcome.shardName, connection.clientId).catch(storeError);
        fallback(connection);
        counters.shardsRateLimited++;
        connection.state = 'new';
        return fail(connection, 'RATE_LIMITED', `more than ${shardsPerMinute} new shards per minute from this address; join an existing shard or retry later`, { id });
      }
      connection.shardName = outcome.shardName;
      members = outcome.members;
    }
    if (connection.socket.readyState !== connection.socket.OPEN) {
      // Closed while joining: nobody will ever resume this one.
      connection.state = 'joined';
      detach(connection);
      return void finalize(connection, false);
    }
    counters.joins++;
    connection.state = 'joined';
    // The hub's key is the peer's scope: one string per shard, not one per client.
    const scope = attach(connection);
    if (connection.peerId) peers.register(connection.peerId, connection.peerToken, scope);
    // One pass: the wire list (online members and this one) and this client's own record.
    let self: MemberRecord | undefined;
    const list: MemberWire[] = [];
    for (const member of members) {
      const own = member.clientId === connection.clientId;
      if (own) self = member;
      if (own || member.online) list.push(toWire(member));
    }
    const joined: JoinedMessage = {
      type: 'joined',
      id,
      clientId: connection.clientId,
      shardName: connection.shardName,
      resumeToken: running().resumeTokens.issue(bootId, connection.projectId, connection.shardName, connection.clientId),
      resumed: resumed !== null,
      lastSeq: connection.lastSeq,
      peer: connection.peerId ? { id: connection.peerId, token: connection.peerToken } : null,
      members: list,
      limits: wireLimits,
      userId: connection.userId,
      identifyError,
      s: preciseNow(),
    };
    send(connection, joined);
    // toWire leaves `online` out: the record as stored (online) is what the others see.
    if (self) publishPresence(connection, { type: 'presence', op: 'add', member: toWire(self) }, connection.clientId);
  }

  /** A browser client's peer id and the token that registers it (backend clients have none). */
  function issuePeerId(connection: Connection): void {
    if (connection.kind !== 'browser') return;
    connection.peerId = randomId(true);
    connection.peerToken = randomId();
  }

  /** Places the connection's member in `shardName` (or, without one, in a shard with room) within its limits. */
  function joinStore(connection: Connection, shardName: string | undefined, userInfo: EventPayload): ReturnType<ShardStore['join']> {
    return store.join({
      projectId: connection.projectId,
      shardName,
      maxConnectionsPerShard: connection.maxConnectionsPerShard,
      maxShards: limits.maxShardsPerProject,
      member: memberRecord(connection, userInfo),
      newShardName: readableShardName,
    });
  }

  function memberRecord(connection: Connection, userInfo: EventPayload): MemberRecord {
    return {
      clientId: connection.clientId,
      userInfo,
      userId: connection.userId,
      connectedAt: Date.now(),
      peerId: connection.peerId,
      kind: connection.kind,
      online: true,
    };
  }

  /** Takes back an earlier client id and place; returns the shard's members, or null for a fresh join. */
  async function resume(connection: Connection, message: JoinMessage, userId: string | null, userInfo: EventPayload): Promise<readonly MemberRecord[] | null> {
    const { clientId, resumeToken } = message.resume!;
    const checked = running().resumeTokens.check(resumeToken, message.projectId, clientId);
    if (!checked) return null; // forged or from another secret: a fresh join, never someone else's id
    const existing = await store.member(message.projectId, checked.shardName, clientId);
    connection.clientId = clientId;
    connection.shardName = checked.shardName;
    if (existing) {
      // Within the grace period, or the old socket is half open and not noticed yet: take over from it.
      const key = memberKey(connection);
      const previous = offline.get(key) ?? hubs.get(shardKey(connection.projectId, connection.shardName))?.locals.get(clientId);
      if (previous && previous !== connection) {
        clearTimeout(previous.graceTimer);
        offline.delete(key);
        if (previous.state === 'joined') {
          detach(previous);
          publishPresence(previous, { type: 'presence', op: 'remove', clientId }, clientId);
        }
        previous.state = 'closed';
        previous.socket.terminate();
        connection.lastSeq = previous.lastSeq;
        connection.peerId = previous.peerId;
        connection.peerToken = previous.peerToken;
        // Its buckets as they stand (one clock in this process): a reconnection never refills them.
        connection.eventMilliTokens = previous.eventMilliTokens;
        connection.eventStamp = previous.eventStamp;
        connection.messageMilliTokens = previous.messageMilliTokens;
        connection.messageStamp = previous.messageStamp;
      } else if (!previous) {
        // From another node (or after kill -9 of it): the buckets saved with the session.
        if (existing.rateBuckets) restoreBuckets(connection, existing.rateBuckets, limits, clock());
        // Held by another node (Redis): a fresh peer id, and the receivers' duplicate check covers resent events.
        issuePeerId(connection);
        // That node may still hold a half-open socket of this client: it drops it (no presence, no store change).
        if (nodeId !== null) store.publish(message.projectId, checked.shardName, { kind: 'takeover', clientId, node: nodeId });
      }
      connection.userId = userId ?? existing.userId;
      const member = await store.update(message.projectId, checked.shardName, clientId, {
        online: true,
        userId: connection.userId,
        ...(message.userInfo ? { userInfo } : {}),
        ...(connection.peerId !== existing.peerId ? { peerId: connection.peerId } : {}),
      });
      return member ? store.members(message.projectId, checked.shardName) : fallback(connection);
    }
    if (checked.bootId === bootId) return fallback(connection); // the grace period ran out: a new id
    // The server restarted and lost its state: the client takes its old id and shard back if there is room.
    connection.userId = userId;
    issuePeerId(connection);
    const outcome = await joinStore(connection, checked.shardName, userInfo);
    return outcome.ok ? outcome.members : fallback(connection);
  }

  function fallback(connection: Connection): null {
    connection.clientId = '';
    connection.shardName = '';
    connection.peerId = null;
    connection.peerToken = '';
    connection.lastSeq = 0;
    return null;
  }

  function refuse(connection: Connection, code: ErrorCode, message: string, id: number, closeCode: number = CLOSE_CODES.REFUSED): void {
    fail(connection, code, message, { id });
    connection.state = 'closed';
    closeSoon(connection.socket, closeCode, code);
  }

  // ─── HTTP ─────────────────────────────────────────────────────────────────

  /** A served project, or undefined (never a property of Object.prototype). */
  function projectOf(projectId: string): SignalingProject | undefined {
    if (!Object.prototype.hasOwnProperty.call(projects, projectId)) return undefined;
    const entry = projects[projectId];
    return typeof entry === 'string' ? { token: entry } : entry;
  }
  /** The token of a served project, or undefined. */
  function tokenOf(projectId: string): string | undefined {
    return projectOf(projectId)?.token;
  }

  /** Project credentials in headers, as the services take them (`x-platform-project` is the older name of the id header). */
  function authorizedProject(request: IncomingMessage): string | null {
    const projectId = request.headers[PROJECT_ID_HEADER] ?? request.headers['x-platform-project'];
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (typeof projectId !== 'string') return null;
    const expected = tokenOf(projectId);
    return expected !== undefined && token.length > 0 && sameSecret(token, expected) ? projectId : null;
  }

  function json(response: ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    response.end(JSON.stringify(body));
  }

  function metrics(): SignalingMetrics {
    const memory = process.memoryUsage();
    const stats = store.stats();
    return {
      connections: connectionCount,
      shards: stats.shards,
      members: stats.members,
      peerSockets: peers.sockets,
      ...counters,
      heapUsedBytes: memory.heapUsed,
      rssBytes: memory.rss,
    };
  }

  async function onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // The services answer their own prefixes (/services/, /cdn/) and leave the rest to the routes below.
    if (await running().services.handle(request, response)) return;
    const url = new URL(request.url ?? '/', 'http://server');
    const route = `${request.method ?? 'GET'} ${url.pathname}`;
    switch (route) {
      case 'GET /':
        return json(response, 200, { name: 'platform-kit signaling', version: SIGNALING_VERSION, control: CONTROL_PATH, peerjs: PEERJS_PATH });
      case 'GET /health':
        return json(response, 200, { status: 'ok', connections: connectionCount, ...(nodeId === null ? {} : { node: nodeId }) });
      case 'GET /metrics': {
        const lines = Object.entries(metrics()).map(([key, value]) => `platform_kit_${key.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())} ${value}`);
        response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
        return void response.end(lines.join('\n') + '\n');
      }
      case 'GET /info': {
        const projectId = authorizedProject(request);
        if (!projectId) return json(response, 401, serializeError(new PlatformError('UNAUTHORIZED', 'project id and token required')));
        return json(response, 200, await store.shards(projectId));
      }
      default:
        if (request.method === 'GET' && url.pathname.startsWith(PEERJS_PATH) && url.pathname.endsWith('/id')) {
          // peerjs asks here for an id when given none; ours are issued with `joined`, bound to a client.
          response.writeHead(403, { 'content-type': 'text/plain' });
          return void response.end('platform-kit: peer ids are issued on the control socket');
        }
        return json(response, 404, serializeError(new PlatformError('NOT_FOUND', `no route ${route}`)));
    }
  }

  // ─── wiring ───────────────────────────────────────────────────────────────

  const http = createServer((request, response) => {
    onRequest(request, response).catch((error: unknown) => {
      log(`platform-kit: ${String(error)}`);
      if (!response.headersSent) json(response, 500, serializeError(error));
      else response.end();
    });
  });
  // Room for a full payload, its envelope and JSON escaping; larger frames end the socket (ws code 1009).
  const maxFrameBytes = (limits.maxPayloadBytes + FRAME_ENVELOPE_BYTES) * 4;
  const controlServer = new WebSocketServer({
    noServer: true,
    maxPayload: maxFrameBytes,
    perMessageDeflate: false,
    clientTracking: false,
    WebSocket: controlSocketClass({ message: onMessage, close: onClose, threw }),
    // A v2 client that joins in the handshake offers this; a browser fails a handshake whose answer selects none.
    handleProtocols: (protocols) => (protocols.has(CONTROL_SUBPROTOCOL) ? CONTROL_SUBPROTOCOL : false),
  });
  const peerServer = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024, perMessageDeflate: false, clientTracking: false });

  const decodeJoin = (encoded: string): string => decodeHandshakeJoin(encoded, limits.maxJsonDepth);
  function onControlSocket(socket: ControlSocket, request: IncomingMessage, address: string): void {
    const connection = new Connection(socket, clock(), limits);
    // From here on the socket's events reach onMessage and onClose (controlSocketClass).
    socket.connection = connection;
    // Read at the upgrade: the request (and its X-Forwarded-For) is gone by the time a later join frame comes.
    connection.address = address;
    if (unjoinedLimited) {
      connection.unjoinedCounted = true;
      unjoinedByAddress.set(address, (unjoinedByAddress.get(address) ?? 0) + 1);
    }
    const origin = request.headers.origin;
    if (typeof origin === 'string') connection.origin = origin;
    unjoined.add(connection);
    connectionCount++;
    // v2: the join may come with the handshake; then it is handled as if it were the first frame.
    const offered = parseHandshakeJoin(request.headers['sec-websocket-protocol'], decodeJoin);
    if (offered === undefined) return;
    const now = clock();
    if (offered === null) return invalid(connection, now, 'malformed join in the handshake');
    onClientMessage(connection, offered, 0, now);
  }

  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A reset during the upgrade must not be an unhandled 'error' (ws adds its own listener once it takes the socket).
    socket.on('error', destroySocket);
    try {
      upgrade(request, socket, head);
    } catch (error) {
      log(`platform-kit: upgrade failed: ${String(error)}`);
      socket.destroy();
    }
  });
  function destroySocket(this: Duplex): void {
    this.destroy();
  }
  function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    // Origin-form (`/dispatch?…`) is what clients send; anything else goes through the URL parser.
    const pathname = !url.startsWith('/') ? new URL(url, 'http://server').pathname : query < 0 ? url : url.slice(0, query);
    if (pathname === CONTROL_PATH) {
      const address = addressNeeded ? clientAddress(request, trustProxy) : '';
      if (unjoinedLimited && (unjoinedByAddress.get(address) ?? 0) >= maxUnjoined) {
        // Before any WebSocket is made: an address holding this many unjoined sockets gets no more.
        counters.upgradesRefused++;
        socket.end('HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      // Uncorked at the end of the turn: the 101 and a handshake join's `joined` leave in one write.
      corkStream(socket);
      controlServer.handleUpgrade(request, socket, head, (ws) => {
        socket.off('error', destroySocket); // ws listens from here on
        const control = ws as ControlSocket;
        try {
          onControlSocket(control, request, address);
        } catch (error) {
          // The door's catch for the handshake join (the socket's own events have theirs).
          if (control.connection) threw(control.connection, error, 'handshake');
          else control.terminate();
        }
      });
    } else if (pathname === `${PEERJS_PATH}peerjs`) {
      peerServer.handleUpgrade(request, socket, head, (ws) => {
        socket.off('error', destroySocket);
        peers.accept(ws, request);
      });
    } else {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
    }
  }

  const sweep = setInterval(() => {
    const now = Date.now();
    const since = clock();
    for (const connection of liveConnections()) {
      if (connection.state === 'new' && since - connection.openedAt > joinTimeoutMs) {
        connection.socket.close(CLOSE_CODES.JOIN_TIMEOUT, 'join timeout');
      } else if (!connection.alive) {
        // Two intervals without a pong or a frame: the socket is dead (or the network is); presence follows.
        connection.socket.terminate();
      } else {
        connection.alive = false;
        connection.socket.ping();
      }
    }
    peers.sweep(now);
  }, heartbeatIntervalMs);
  sweep.unref();

  let address: AddressInfo | null = null;
  function url(): string {
    if (!address) throw new PlatformError('NOT_CONNECTED', 'the server is not listening yet: await server.ready');
    const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : '127.0.0.1';
    return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  }

  // The services first (server key, token issuer, secret store), then listen: nothing is served half made.
  const ready = (async () => {
    await store.ready;
    const serverKey = await openServerKey(dataDir, options.secretKey);
    resumeTokens = new ResumeTokens(deriveKey(serverKey, 'resume token'));
    const identity = options.identity ?? {};
    const router = await createServicesRouter({
      projects,
      dataDir,
      secretKey: serverKey,
      // Read per request: the port is known only once listening.
      cdnUrl: () => options.cdnUrl ?? `${url()}/cdn`,
      ...(options.adminKey === undefined ? {} : { adminKey: options.adminKey }),
      ...(options.allowAnonymousTokens === undefined ? {} : { allowAnonymousTokens: options.allowAnonymousTokens }),
      ...(options.uploadLimits === undefined ? {} : { limits: options.uploadLimits }),
      ...(options.transform === undefined ? {} : { transform: options.transform }),
      ...(secretStore === undefined ? {} : { secretStore }),
      ...(identity.keys === undefined ? {} : { tokenKeys: identity.keys }),
      ...(identity.tokenTtlSeconds === undefined ? {} : { tokenTtlSeconds: identity.tokenTtlSeconds }),
      ...(identity.maxTokenTtlSeconds === undefined ? {} : { maxTokenTtlSeconds: identity.maxTokenTtlSeconds }),
    });
    services = router;
    try {
      await new Promise<void>((resolve, reject) => {
        http.once('error', reject);
        http.listen(options.port ?? 8787, options.host, () => {
          http.off('error', reject);
          address = http.address() as AddressInfo;
          resolve();
        });
      });
    } catch (error) {
      // Port taken: release what the services opened, so a failed start leaves nothing behind.
      await router.close();
      if (ownStore) await store.close();
      if (options.secretStore === undefined) await secretStore?.close();
      throw error;
    }
  })();
  // A caller that never awaits `ready` must not crash the process with an unhandled rejection: close() and `ready` report it.
  ready.catch(() => undefined);

  let closing: Promise<void> | null = null;
  return {
    ready,
    get url(): string {
      return url();
    },
    close() {
      closing ??= (async () => {
        await ready.catch(() => undefined);
        clearInterval(sweep);
        clearTimeout(presenceTimer);
        const open = [...liveConnections()];
        for (const connection of open) connection.socket.close(1012, 'server restart');
        for (const connection of offline.values()) clearTimeout(connection.graceTimer);
        peers.close();
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
        for (const connection of open) connection.socket.terminate();
        if (ownStore) await store.close();
        await services?.close();
        if (options.secretStore === undefined) await secretStore?.close();
      })();
      return closing;
    },
    async issueUserToken(projectId, userId, ttlSeconds) {
      const entry = Object.prototype.hasOwnProperty.call(projects, projectId) ? projects[projectId] : undefined;
      const role = typeof entry === 'object' && entry.ownerUserId !== undefined && entry.ownerUserId === userId ? 'admin' : 'user';
      return running().services.tokens.issue(projectId, { id: userId, role }, ttlSeconds);
    },
    get tokens() {
      return running().services.tokens;
    },
    get vccPublicKey() {
      return running().services.vccPublicKey;
    },
    signRemixHeaders(context, signOptions) {
      return running().services.signRemixHeaders(context, signOptions);
    },
    metrics,
  };
}
