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
 *
 * This file only assembles the parts, one concept per file:
 * - server-options.ts (the public option types), server-settings.ts (their
 *   defaults and checks), http-routes.ts, upgrade.ts (the WebSocket upgrades);
 * - control/: the control socket. door.ts checks every frame and routes it to
 *   one handler per frame type (handlers/join.ts, emit.ts, ping.ts…), behind
 *   one catch; join-admission.ts and placement.ts (who may join, and where),
 *   relay.ts (the shards on this node and their fan-out), presence.ts,
 *   outbox.ts (every write, corked per turn), member-session.ts (the grace period),
 *   heartbeat.ts, rate-buckets.ts, control-socket.ts (the per-socket state);
 *   they share one context.ts {@link ServerContext} per server.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { PlatformError } from '../protocol/errors.js';
import { liveConnections, ServerContext } from './control/context.js';
import { startHeartbeat } from './control/heartbeat.js';
import { endOfTurn, flushWindowedHubs } from './control/presence.js';
import { metrics, requestListener } from './http-routes.js';
import { roleOf } from './projects.js';
import { ResumeTokens } from './resume-token.js';
import type { SignalingServer, SignalingServerOptions } from './server-options.js';
import { resolveSettings } from './server-settings.js';
import { deriveKey } from './services/http.js';
import { createRedisSecretStore } from './services/redis-secret-store.js';
import { createServicesRouter } from './services/router.js';
import { openServerKey } from './services/server-key.js';
import type { SecretStore } from './services/secret-store.js';
import { createMemoryStore } from './store/memory-store.js';
import { createRedisStore } from './store/redis-store.js';
import type { ShardStore } from './store/store.js';
import { upgradeListener } from './upgrade.js';

// The option types are defined in server-options.ts; importers of this file (index.ts, bin.ts) find them here too.
export type { SignalingLimits, SignalingMetrics, SignalingProject, SignalingServer, SignalingServerOptions, UserTokenOptions } from './server-options.js';

/**
 * Creates and starts a signaling server. Resolve `ready` before using `url`.
 *
 * @example
 * const server = createSignalingServer({ port: 0, projects: { demo: process.env.DEMO_TOKEN! } });
 * await server.ready;
 * console.log(server.url);
 */
export function createSignalingServer(options: SignalingServerOptions): SignalingServer {
  const settings = resolveSettings(options);
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
  const secretStore: SecretStore | undefined = options.secretStore ?? (options.redis !== undefined ? createRedisSecretStore({ redis: options.redis, log }) : undefined);
  if (options.redis !== undefined && options.secretKey === undefined) {
    log('platform-kit: running on Redis without secretKey: every node must share the same <dataDir>/server.key, or resumes across nodes fail');
  }
  const dataDir = resolvePath(options.dataDir ?? '.platform-data');
  // What every handler shares (control/context.ts): made once, here.
  const ctx = new ServerContext(settings, projects, store, log, { endOfTurn, flushWindowedHubs });

  const http = createServer(requestListener(ctx));
  http.on('upgrade', upgradeListener(ctx));
  const sweep = startHeartbeat(ctx);

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
    ctx.resumeTokens = new ResumeTokens(deriveKey(serverKey, 'resume token'));
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
      log,
    });
    ctx.services = router;
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
      ctx.closing = true;
      closing ??= (async () => {
        await ready.catch(() => undefined);
        clearInterval(sweep);
        clearTimeout(ctx.presenceTimer);
        const open = [...liveConnections(ctx)];
        for (const connection of open) connection.socket.close(1012, 'server restart');
        for (const connection of ctx.offline.values()) clearTimeout(connection.graceTimer);
        ctx.peers.close();
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
        for (const connection of open) connection.socket.terminate();
        if (ownStore) await store.close();
        await ctx.services?.close();
        if (options.secretStore === undefined) await secretStore?.close();
      })();
      return closing;
    },
    async issueUserToken(projectId, userId, ttlSeconds) {
      return ctx.running().services.tokens.issue(projectId, { id: userId, role: roleOf(projects, projectId, userId) }, ttlSeconds);
    },
    get tokens() {
      return ctx.running().services.tokens;
    },
    get vccPublicKey() {
      return ctx.running().services.vccPublicKey;
    },
    signRemixHeaders(context, signOptions) {
      return ctx.running().services.signRemixHeaders(context, signOptions);
    },
    metrics: () => metrics(ctx),
  };
}
