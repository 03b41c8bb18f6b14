/**
 * What the control socket's handlers share: one {@link ServerContext} per
 * server, made by the factory (server.ts) and passed to every handler as its
 * first argument. It holds the settings, the store, the open sockets (by
 * shard: the hubs), the clients within their grace period, the counters and
 * the state of the end-of-turn batching. Nothing per socket lives here but in
 * the socket's {@link Connection}; nothing per event is made here at all.
 */
import { randomBytes } from 'node:crypto';
import { PlatformError } from '../../protocol/errors.js';
import { PeerSignaling } from '../peer-signaling.js';
import type { Projects } from '../projects.js';
import type { ResumeTokens } from '../resume-token.js';
import type { SignalingLimits, SignalingMetrics } from '../server-options.js';
import type { ServerSettings } from '../server-settings.js';
import type { ServicesRouter } from '../services/router.js';
import { JoinLimiter } from '../store/join-limit.js';
import type { ShardStore } from '../store/store.js';
import type { Connection } from './control-socket.js';
import { createJoinGate, type JoinGate } from './join-gate.js';

/** The part of a Node stream (net.Socket) the fan-out batching uses. */
export interface CorkableStream {
  cork(): void;
  uncork(): void;
}

/** A presence change waiting for the end of the event loop turn. */
export interface PendingPresence {
  /** The serialized single-change `presence` frame. */
  readonly frame: string;
  /** The client that must not hear it (the joiner of an `add`, the leaver of a `remove`). */
  readonly except: string | null;
  /** Tick of the presence clock: connections attached later already have it in their `joined` list. */
  readonly at: number;
}

/** What a hub knows (spectators.ts keeps it; here, where the hub is, so that neither imports the other) of its shard's spectators beyond its own. */
export interface Watchers {
  /** Spectators each other node holds, as it last published, and when (a shared store only). */
  readonly remote: Map<string, { readonly count: number; readonly at: number }>;
  /** The total last told to this hub's players and spectators. */
  told: number;
  /** This node's count as last published (-1: not yet). */
  published: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Publishes this node's count again while it holds spectators (see WATCHERS_REFRESH_MS). */
  refresh: ReturnType<typeof setInterval> | undefined;
}

/** A shard with members on this node: its one store subscription and its local connections. */
export interface Hub {
  /** `projectId\0shardName`. */
  readonly key: string;
  readonly locals: Map<string, Connection>;
  /** Spectators on this node (spectators.ts): they hear broadcasts and presence, and are no members. */
  readonly spectators: Map<string, Connection>;
  /** What the hub knows of the shard's spectators over all nodes (spectators.ts); null until it has any. */
  watchers: Watchers | null;
  unsubscribe: () => void;
  /** Presence changes not sent yet (null: none). */
  presence: PendingPresence[] | null;
  /** Until then (performance.now()), a new presence change waits for the window timer; after, for the end of the turn. */
  quietUntil: number;
  /**
   * This node saw the shard hold state: finding it empty afterwards means the store lost it (a
   * Redis restart), and the members are asked to send theirs again (handlers/state.ts).
   */
  stateSeen?: boolean;
  /** The state's size in bytes after this node last collected its garbage (handlers/state.ts compact). */
  stateCollectedBytes?: number;
}

/** The counters of {@link SignalingMetrics} that the handlers count. */
export type Counters = {
  -readonly [
    K in 'joins' | 'eventsIn' | 'deliveries' | 'errors' | 'invalidFrames' | 'joinsRateLimited' | 'shardsRateLimited' | 'disconnectedForRefusals' | 'upgradesRefused'
  ]: SignalingMetrics[K];
};

/**
 * The end-of-turn steps (presence.ts), handed in by the factory (server.ts): presence.ts and
 * outbox.ts read this file's types, so this file does not import them (no import circle).
 */
export interface TurnSteps {
  /** Sends the presence due now, then uncorks every socket written to in the turn. */
  endOfTurn(ctx: ServerContext): void;
  /** The presence window timer: sends the changes that waited for it. */
  flushWindowedHubs(ctx: ServerContext): void;
}

/** The state of one server that its handlers share; see the file's comment. */
export class ServerContext {
  /** `settings.limits`, one property load nearer for the hot path. */
  readonly limits: SignalingLimits;
  /** Set when the store is shared by many nodes: traffic for other nodes goes through it. */
  readonly nodeId: string | null;
  /** Resume tokens carry this: a client back after a restart is told apart from one whose grace ran out. */
  readonly bootId = randomBytes(6).toString('base64url');
  /** The PeerJS side (peer-signaling.ts); peer ids are registered at join and revoked at the end. */
  readonly peers: PeerSignaling;
  readonly counters: Counters = {
    joins: 0,
    eventsIn: 0,
    deliveries: 0,
    errors: 0,
    invalidFrames: 0,
    joinsRateLimited: 0,
    shardsRateLimited: 0,
    disconnectedForRefusals: 0,
    upgradesRefused: 0,
  };
  /** The join allowance of a store that keeps none (a custom store): this process's own. */
  readonly localJoins: JoinLimiter | null;
  /** Whether the join limit's store is failing: logged once per outage, not once per join. */
  joinLimitFailing = false;
  // Made during `ready`, before the server listens: no request or socket ever sees them unset.
  services: ServicesRouter | undefined = undefined;
  resumeTokens: ResumeTokens | undefined = undefined;
  /** Set once close() starts: store failures of the shutdown are not logged. */
  closing = false;
  /** Joins in progress and waiting their turn on this node (join-gate.ts). */
  readonly joinGate: JoinGate = createJoinGate();

  // Open control sockets: those not joined (yet) here, the joined ones in their hub's `locals`
  // (no second set of 10,000 entries), the count beside.
  readonly unjoined = new Set<Connection>();
  /** Unjoined sockets per address (SignalingLimits.maxUnjoinedSocketsPerAddress); only addresses with one are here. */
  readonly unjoinedByAddress = new Map<string, number>();
  connectionCount = 0;
  /** Shards with members on this node, by {@link shardKey}. */
  readonly hubs = new Map<string, Hub>();
  /** Clients within their grace period, by {@link memberKey}. */
  readonly offline = new Map<string, Connection>();

  // The end-of-turn batching (outbox.ts, presence.ts).
  /** Sockets written to during this turn, uncorked at its end. */
  readonly corked = new Set<CorkableStream>();
  endOfTurnScheduled = false;
  /** Hubs whose changes leave at the end of this turn. */
  readonly dueHubs = new Set<Hub>();
  /** Hubs whose changes leave when the window timer fires. */
  readonly windowedHubs = new Set<Hub>();
  /** Orders attaches and presence changes on this node (see {@link PendingPresence.at}). */
  presenceClock = 0;
  presenceTimer: ReturnType<typeof setTimeout> | undefined = undefined;
  // Made once per server, so that no timer or store call needs a closure of its own.
  readonly endOfTurn: () => void;
  readonly flushWindowedHubs: () => void;
  /** A store call whose failure nobody waits for: logged (Redis down is not a crash). */
  readonly storeError = (error: unknown): null => {
    if (!this.closing) this.log(`platform-kit: store: ${String(error)}`);
    return null;
  };

  constructor(
    readonly settings: ServerSettings,
    /** The served projects, read on every join (see SignalingServerOptions.projects). */
    readonly projects: Projects,
    readonly store: ShardStore,
    readonly log: (line: string) => void,
    steps: TurnSteps,
  ) {
    this.endOfTurn = () => steps.endOfTurn(this);
    this.flushWindowedHubs = () => steps.flushWindowedHubs(this);
    this.limits = settings.limits;
    this.nodeId = store.nodeId ?? null;
    this.localJoins = store.takeJoin ? null : new JoinLimiter();
    this.peers = new PeerSignaling(
      this.nodeId === null
        ? null
        : (scope, dst, frame) => {
            const at = scope.indexOf('\u0000');
            store.publish(scope.slice(0, at), scope.slice(at + 1), { kind: 'peer', dst, frame });
          },
      {
        maxJsonDepth: settings.limits.maxJsonDepth,
        maxMessagesPerSecond: settings.limits.maxPeerMessagesPerSecond,
        maxRefusals: settings.limits.maxRefusals,
        maxBufferedBytes: settings.limits.maxBufferedBytes,
      },
      log,
    );
  }

  /** The services and resume tokens, made during `ready`; throws NOT_CONNECTED before. */
  running(): { services: ServicesRouter; resumeTokens: ResumeTokens } {
    const { services, resumeTokens } = this;
    if (!services || !resumeTokens) throw new PlatformError('NOT_CONNECTED', 'the server is not ready yet: await server.ready');
    return { services, resumeTokens };
  }
}

/** The key of a shard in {@link ServerContext.hubs}, and a peer's scope. */
export const shardKey = (projectId: string, shardName: string): string => `${projectId}\u0000${shardName}`;
/** The key of a member in {@link ServerContext.offline}: `project\0shard\0client`. */
export const memberKey = (c: Connection): string => `${c.projectId}\u0000${c.shardName}\u0000${c.clientId}`;

/** Every open control socket, joined or not. */
export function* liveConnections(ctx: ServerContext): Generator<Connection> {
  yield* ctx.unjoined;
  for (const hub of ctx.hubs.values()) {
    yield* hub.locals.values();
    yield* hub.spectators.values();
  }
}

/**
 * Takes the connection out of the unjoined sockets (it joined, or closed
 * first) and out of its address's count (SignalingLimits.maxUnjoinedSocketsPerAddress).
 * Membership of {@link ServerContext.unjoined} says whether it was counted:
 * no flag per connection.
 */
export function leaveUnjoined(ctx: ServerContext, connection: Connection): void {
  if (!ctx.unjoined.delete(connection)) return;
  const count = ctx.unjoinedByAddress.get(connection.address);
  // Not counted: the limit is off.
  if (count === undefined) return;
  const left = count - 1;
  if (left > 0) ctx.unjoinedByAddress.set(connection.address, left);
  else ctx.unjoinedByAddress.delete(connection.address);
}
