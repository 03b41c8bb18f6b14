/**
 * What the shard dashboard shows, sampled once a second from the signaling
 * server's own state: its counters (`metrics()`, as `GET /metrics` reports
 * them) and its shard store (the same `ShardStore` the server writes).
 *
 * What the server can and cannot see:
 * - Relayed events pass through it: they are counted per shard and sender by
 *   subscribing to each shard's messages in the store (how every node of a
 *   Redis deployment hears them too).
 * - Peer-to-peer events never reach it. A member's path (P2P or relay) and its
 *   own event rate are what the member reports in its userInfo (`net`), as
 *   the Sketch party template does; a backend member is always relayed.
 */
import type { SignalingMetrics, ShardStore } from '../../signaling/index.js';

/** One member as the dashboard shows it. */
export interface DashboardMember {
  readonly clientId: string;
  readonly kind: 'browser' | 'backend';
  readonly online: boolean;
  readonly connectedAt: number;
  readonly userId: string | null;
  /** `userInfo.name`, when the member set one. */
  readonly name: string | null;
  readonly color: string | null;
  /** How its events travel: reported by the member, or known from its kind. */
  readonly path: 'p2p' | 'relay' | 'mixed' | 'connecting' | 'alone' | 'unreported';
  /** Peers reached directly and through the relay, as reported (null: not reported). */
  readonly links: { readonly p2p: number; readonly relay: number } | null;
  /** Events per second it sent through the server (measured here). */
  readonly relayedEventsPerSecond: number;
  /** Events per second it sent on every path, as reported (null: not reported). */
  readonly reportedEventsPerSecond: number | null;
}

/** One shard. */
export interface DashboardShard {
  readonly name: string;
  readonly numConnectedClients: number;
  readonly relayedEventsPerSecond: number;
  readonly members: readonly DashboardMember[];
}

/** The whole picture, as `GET /demo-api/dashboard` answers it. */
export interface DashboardSnapshot {
  readonly at: number;
  readonly uptimeSeconds: number;
  readonly server: SignalingMetrics & { readonly eventsInPerSecond: number; readonly deliveriesPerSecond: number };
  readonly projects: readonly { readonly id: string; readonly shards: readonly DashboardShard[] }[];
}

interface Watched {
  readonly unsubscribe: () => void;
  /** Relayed events by sender in the current second. */
  counting: Map<string, number>;
  /** The last whole second's counts. */
  last: Map<string, number>;
}

/** Samples the server every `intervalMs` and keeps the last snapshot. */
export class ShardMonitor {
  readonly #store: ShardStore;
  readonly #metrics: () => SignalingMetrics;
  readonly #projects: readonly string[];
  readonly #watched = new Map<string, Watched>();
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #startedAt = Date.now();
  #previous: { at: number; eventsIn: number; deliveries: number };
  #rates = { eventsInPerSecond: 0, deliveriesPerSecond: 0 };
  #sampling: Promise<void> = Promise.resolve();

  constructor(options: { store: ShardStore; metrics: () => SignalingMetrics; projects: readonly string[]; intervalMs?: number }) {
    this.#store = options.store;
    this.#metrics = options.metrics;
    this.#projects = options.projects;
    const first = this.#metrics();
    this.#previous = { at: performance.now(), eventsIn: first.eventsIn, deliveries: first.deliveries };
    this.#timer = setInterval(() => {
      this.#sampling = this.#sample().catch((error: unknown) => console.error('platform-kit demo: dashboard sample failed', error));
    }, options.intervalMs ?? 1_000);
    this.#timer.unref();
  }

  /** The dashboard's view now (rates are over the last whole interval). */
  async snapshot(): Promise<DashboardSnapshot> {
    const metrics = this.#metrics();
    const projects = [];
    for (const id of this.#projects) {
      const shards: DashboardShard[] = [];
      for (const shard of await this.#store.shards(id)) {
        const watched = this.#watched.get(key(id, shard.shardName));
        const relayed = watched?.last ?? new Map<string, number>();
        const members = (await this.#store.members(id, shard.shardName)).map((member): DashboardMember => {
          const info = member.userInfo as Record<string, unknown>;
          const net = parseNet(info['net']);
          return {
            clientId: member.clientId,
            kind: member.kind,
            online: member.online,
            connectedAt: member.connectedAt,
            userId: member.userId,
            name: typeof info['name'] === 'string' ? info['name'] : null,
            color: typeof info['color'] === 'string' ? info['color'] : null,
            path: member.kind === 'backend' ? 'relay' : (net?.path ?? 'unreported'),
            links: net ? { p2p: net.p2p, relay: net.relay } : null,
            relayedEventsPerSecond: relayed.get(member.clientId) ?? 0,
            reportedEventsPerSecond: net?.eventsPerSecond ?? null,
          };
        });
        const total = [...relayed.values()].reduce((sum, count) => sum + count, 0);
        shards.push({ name: shard.shardName, numConnectedClients: shard.numConnectedClients, relayedEventsPerSecond: total, members });
      }
      projects.push({ id, shards });
    }
    return { at: Date.now(), uptimeSeconds: Math.round((Date.now() - this.#startedAt) / 1000), server: { ...metrics, ...this.#rates }, projects };
  }

  /** Stops sampling and unsubscribes from every shard. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sampling;
    for (const watched of this.#watched.values()) watched.unsubscribe();
    this.#watched.clear();
  }

  async #sample(): Promise<void> {
    const now = performance.now();
    const metrics = this.#metrics();
    const seconds = Math.max(0.001, (now - this.#previous.at) / 1000);
    this.#rates = {
      eventsInPerSecond: Math.round((metrics.eventsIn - this.#previous.eventsIn) / seconds),
      deliveriesPerSecond: Math.round((metrics.deliveries - this.#previous.deliveries) / seconds),
    };
    this.#previous = { at: now, eventsIn: metrics.eventsIn, deliveries: metrics.deliveries };
    const alive = new Set<string>();
    for (const projectId of this.#projects) {
      for (const shard of await this.#store.shards(projectId)) {
        const shardKey = key(projectId, shard.shardName);
        alive.add(shardKey);
        const watched = this.#watched.get(shardKey);
        if (watched) {
          watched.last = watched.counting;
          watched.counting = new Map();
          continue;
        }
        const created: Watched = {
          counting: new Map(),
          last: new Map(),
          unsubscribe: this.#store.subscribe(projectId, shard.shardName, (message) => {
            if (message.kind === 'event') created.counting.set(message.from, (created.counting.get(message.from) ?? 0) + 1);
          }),
        };
        this.#watched.set(shardKey, created);
      }
    }
    for (const [shardKey, watched] of this.#watched) {
      if (alive.has(shardKey)) continue;
      watched.unsubscribe();
      this.#watched.delete(shardKey);
    }
  }
}

const key = (projectId: string, shardName: string): string => `${projectId}\u0000${shardName}`;

/** A member's own report: `{ p2p, relay, connecting, eventsPerSecond }` (all counts). */
function parseNet(value: unknown): { path: DashboardMember['path']; p2p: number; relay: number; eventsPerSecond: number | null } | null {
  if (typeof value !== 'object' || value === null) return null;
  const net = value as Record<string, unknown>;
  const count = (name: string): number => (typeof net[name] === 'number' && Number.isFinite(net[name]) ? Math.max(0, Math.round(net[name])) : 0);
  const p2p = count('p2p');
  const relay = count('relay');
  const connecting = count('connecting');
  const eps = net['eventsPerSecond'];
  const path: DashboardMember['path'] = p2p > 0 && relay > 0 ? 'mixed' : p2p > 0 ? 'p2p' : relay > 0 ? 'relay' : connecting > 0 ? 'connecting' : 'alone';
  return { path, p2p, relay, eventsPerSecond: typeof eps === 'number' && Number.isFinite(eps) ? eps : null };
}
