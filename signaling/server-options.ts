/**
 * The public types of the signaling server: its options (limits, projects,
 * user tokens), the running server and its metrics. Types only: the defaults
 * and their checks are in server-settings.ts, the factory in server.ts.
 */
import type { RedisOptions } from 'ioredis';
import type { CdnLimits, CdnTransform } from './services/cdn.js';
import type { TokenIssuer, TokenKey } from './services/identity.js';
import type { ServicesProject } from './services/router.js';
import type { SecretStore } from './services/secret-store.js';
import type { RemixContext, VCC_HEADER } from './services/vcc-headers.js';
import type { ShardStore } from './store/store.js';

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
   * socket with `CLOSE_CODES.TOO_MANY_REFUSALS` (protocol/signaling.ts) (4029, reason
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
   * Spectators one shard may have (`connect({ spectator: true })`, or
   * `spectateWhenFull` at a full shard), over every node (each node adds up
   * the counts the others publish). Default 10,000; above: `SHARD_FULL`.
   * Spectators never count toward a shard's `maxConnectionsPerShard`.
   */
  readonly maxSpectatorsPerShard: number;
  /**
   * Most shards one `info()` answers with, the emptiest first (most room
   * left for the default capacity). Default 100. An answer also costs the
   * client one message token per 4 KiB it takes (an answer the bucket cannot
   * pay for is refused, `RATE_LIMITED`), so asking is never cheaper than the
   * bytes it makes the server send.
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
  /**
   * Largest shared state of one shard (`platform-kit/guest/state`), in bytes of its Yjs updates as
   * the server keeps them (merged on a schedule). Default 1 MiB; an update that would pass it is
   * refused `STATE_TOO_LARGE` (and the server keeps the state it had). Also the largest single
   * update frame a client may send (as base64, a third more). A project may ask for less
   * ({@link SignalingProject.maxStateBytes}), never more.
   */
  readonly maxStateBytes: number;
  /**
   * Events each shard keeps for `connect({ history })`: the last this-many relayed by the server
   * (events that went only over the mesh are not among them). Default 100, at most 100; 0 keeps none.
   */
  readonly historyEvents: number;
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
   * Backend joins (the project token) only from this machine: from any other address the join
   * is refused `FORBIDDEN` (4001), the token right or wrong. For a project whose token is no
   * secret, as a demo's is (it is in its repository). The address is the socket's, or behind
   * `trustProxy` proxies the one the outermost trusted proxy saw. Default false.
   */
  readonly backendJoinsFromLoopbackOnly?: boolean;
  /**
   * Browser joins must carry a valid user token (`connect({ authorization })`,
   * see `Platform.identity`); without one, or with one that fails, the join is
   * refused `UNAUTHORIZED` (4001). Default false: anonymous members may join
   * (and an invalid token leaves them connected, unidentified).
   */
  readonly requireUserToken?: boolean;
  /**
   * The project's ceiling on a shard's size: the largest `maxConnectionsPerShard`
   * a client of this project may ask for; a larger request is lowered to it.
   * Default (and at most) 1,000. It is no shard's capacity: a shard's capacity
   * is what its joiners ask for. A named shard has no capacity of its own: each
   * joiner is admitted while the shard holds fewer members than it asked for,
   * so the first joiner cannot make a shard full for everyone (asking for 1)
   * and the clients of a 2-player game, all asking 2, still find the third
   * seat taken.
   */
  readonly shardSizeCeiling?: number;
  /** @deprecated The earlier name of {@link shardSizeCeiling} (read when that is absent): it read as a shard's capacity. */
  readonly maxConnectionsPerShard?: number;
  /** This project's largest shard state in bytes; at most (and by default) {@link SignalingLimits.maxStateBytes}. */
  readonly maxStateBytes?: number;
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

/** Options of `createSignalingServer` (server.ts; not imported here: server.ts reads these types). */
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
