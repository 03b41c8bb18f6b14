#!/usr/bin/env node
/**
 * `platform-kit-server`: runs the signaling server (shards, identity, keystore, CDN).
 *
 *   platform-kit-server --port 8787 --project demo:SECRET [--project other:SECRET2] \
 *     [--owner demo:alice] [--admin-key KEY] [--data-dir .platform-data]
 *
 * Options (each also from the environment):
 *   --port N                   PORT (default 8787; 0 picks a free port)
 *   --host H                   HOST (default: every interface)
 *   --project id:token         PLATFORM_PROJECTS="id:token,id2:token2" (or PLATFORM_PROJECT_ID + PLATFORM_PROJECT_TOKEN)
 *   --owner id:userId          PLATFORM_OWNERS="id:userId,…": the project's owner (role 'admin', may store secrets, upload)
 *   --data-dir DIR             PLATFORM_DATA_DIR (default ./.platform-data): server key, secrets, CDN files
 *   --admin-key KEY            PLATFORM_ADMIN_KEY: host backends ask POST /services/identity/tokens with it (default: none)
 *   --cdn-url URL              PLATFORM_CDN_URL (default <server url>/cdn)
 *   --allow-anonymous-tokens   PLATFORM_ALLOW_ANONYMOUS_TOKENS=1 (default off)
 *   --max-upload-bytes N       PLATFORM_MAX_UPLOAD_BYTES (default 25 MB)
 *   --token-key kid:secret     PLATFORM_TOKEN_KEYS="kid:secret,…", newest first (default: derived from the server key)
 *   --identity-secret S        PLATFORM_IDENTITY_SECRET: one token key (kid k1); ≥ 32 bytes
 *   --heartbeat-ms N      --grace-ms N   --mesh-max N   --max-events-per-second N
 *   --max-joins-per-address-per-minute N   PLATFORM_MAX_JOINS_PER_ADDRESS_PER_MINUTE: joins (resumes included)
 *                              per client address per minute, across every node (default 3000; 0: no limit)
 *   --trust-proxy N            PLATFORM_TRUST_PROXY: proxies in front that append to X-Forwarded-For; the join
 *                              limit counts the address they saw (default 0: the socket's address)
 *   --allowed-origin id:origin PLATFORM_ALLOWED_ORIGINS="id:https://app.example,…": browser joins of project id
 *                              only from these origins (repeat for more; default: any origin)
 *   --require-user-token id    PLATFORM_REQUIRE_USER_TOKEN="id,…": browser joins of project id need a valid user token
 *   --local-backends id        PLATFORM_LOCAL_BACKENDS="id,…": backend joins of project id from this machine only (a public token)
 *   --max-json-depth N   --max-refusals N   --max-peer-messages-per-second N
 *   --max-shards-per-address-per-minute N   --max-info-shards N   --max-unjoined-sockets-per-address N
 *   --max-spectators-per-shard N
 *   --max-state-bytes N   --history-events N
 *   --max-connections-per-shard id:N
 *                              (see SignalingLimits and SignalingProject in server-options.ts; the same PLATFORM_… names
 *                              in capitals with underscores)
 *
 * Many nodes (scale-out; every node gets the same --redis and --secret-key):
 *   --redis URL                PLATFORM_REDIS_URL: redis://host:port; shards, presence, keystore in Redis
 *   --node-id ID               PLATFORM_NODE_ID: this node's id (default: random per start)
 *   --lease-ms N               PLATFORM_LEASE_MS: a node silent this long is swept by the others (default 30000)
 *   --secret-key KEY           PLATFORM_SECRET_KEY: the 32-byte server key, base64 (default <data-dir>/server.key);
 *                              nodes must share it (resume tokens, user tokens, sealed secrets)
 *
 * Prints one line `platform-kit signaling: http://HOST:PORT` once it listens
 * (tests read the URL from it) and stops cleanly on SIGINT/SIGTERM. `--help` (or `-h`)
 * prints this comment and exits 0.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parsePort, PORT_RULE } from './port.js';
import { createSignalingServer, type SignalingLimits, type SignalingProject, type SignalingServerOptions } from './server.js';
import type { TokenKey } from './services/identity.js';

function fail(message: string): never {
  console.error(`platform-kit-server: ${message}`);
  process.exit(2);
}

/**
 * The help text is the comment at the top of this file, read from the running file itself
 * (bin.ts from the sources, bin.js in dist/: tsc keeps comments), so the options are written once.
 */
function help(): string {
  const source = readFileSync(fileURLToPath(import.meta.url), 'utf8');
  const comment = /\/\*\*\n([\s\S]*?)\n \*\//.exec(source)?.[1] ?? '';
  return comment
    .split('\n')
    .map((line) => line.replace(/^ \* ?| \*$/, ''))
    .join('\n')
    .replace(/`/g, '');
}

let values: ReturnType<typeof parse>['values'];
function parse() {
  return parseArgs({
    options: {
      help: { type: 'boolean', short: 'h' },
      port: { type: 'string' },
      host: { type: 'string' },
      project: { type: 'string', multiple: true },
      owner: { type: 'string', multiple: true },
      'data-dir': { type: 'string' },
      'admin-key': { type: 'string' },
      'cdn-url': { type: 'string' },
      'allow-anonymous-tokens': { type: 'boolean' },
      'max-upload-bytes': { type: 'string' },
      'token-key': { type: 'string', multiple: true },
      'identity-secret': { type: 'string' },
      'heartbeat-ms': { type: 'string' },
      'grace-ms': { type: 'string' },
      'mesh-max': { type: 'string' },
      'max-events-per-second': { type: 'string' },
      'max-joins-per-address-per-minute': { type: 'string' },
      'trust-proxy': { type: 'string' },
      'allowed-origin': { type: 'string', multiple: true },
      'require-user-token': { type: 'string', multiple: true },
      'local-backends': { type: 'string', multiple: true },
      'max-json-depth': { type: 'string' },
      'max-refusals': { type: 'string' },
      'max-peer-messages-per-second': { type: 'string' },
      'max-shards-per-address-per-minute': { type: 'string' },
      'max-info-shards': { type: 'string' },
      'max-state-bytes': { type: 'string' },
      'history-events': { type: 'string' },
      'max-unjoined-sockets-per-address': { type: 'string' },
      'max-spectators-per-shard': { type: 'string' },
      'max-connections-per-shard': { type: 'string', multiple: true },
      redis: { type: 'string' },
      'node-id': { type: 'string' },
      'lease-ms': { type: 'string' },
      'secret-key': { type: 'string' },
    },
    strict: true,
  });
}
try {
  values = parse().values;
} catch (error) {
  fail(`${(error as Error).message} (platform-kit-server --help lists the options)`);
}
if (values.help) {
  console.log(help());
  process.exit(0);
}

const env = process.env;
const list = (name: string): string[] =>
  env[name]
    ?.split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '') ?? [];
/** Splits `a:b` at the first colon. */
function pair(text: string, what: string): [string, string] {
  const at = text.indexOf(':');
  if (at <= 0 || at === text.length - 1) fail(`${what} wants a:b, got "${text}"`);
  return [text.slice(0, at).trim(), text.slice(at + 1).trim()];
}
function port(text: string | undefined): number {
  if (text === undefined) return 8787;
  const parsed = parsePort(text);
  if (parsed === null) fail(`--port (or PORT) wants ${PORT_RULE}, got "${text}"`);
  return parsed;
}
function number(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) fail(`${what} wants a number, got "${text}"`);
  return value;
}

const tokens: Record<string, string> = {};
for (const item of [...(values.project ?? []), ...list('PLATFORM_PROJECTS')]) {
  const [id, token] = pair(item, '--project');
  tokens[id] = token;
}
if (env['PLATFORM_PROJECT_ID'] && env['PLATFORM_PROJECT_TOKEN']) tokens[env['PLATFORM_PROJECT_ID']] = env['PLATFORM_PROJECT_TOKEN'];
if (Object.keys(tokens).length === 0) fail('no project configured (use --project id:token or PLATFORM_PROJECTS)');
const owners: Record<string, string> = {};
for (const item of [...(values.owner ?? []), ...list('PLATFORM_OWNERS')]) {
  const [id, userId] = pair(item, '--owner');
  if (!(id in tokens)) fail(`--owner names "${id}", which is not a --project`);
  owners[id] = userId;
}
const known = (id: string, flag: string): void => {
  if (!Object.prototype.hasOwnProperty.call(tokens, id)) fail(`${flag} names "${id}", which is not a --project`);
};
const origins: Record<string, string[]> = {};
for (const item of [...(values['allowed-origin'] ?? []), ...list('PLATFORM_ALLOWED_ORIGINS')]) {
  const [id, origin] = pair(item, '--allowed-origin');
  known(id, '--allowed-origin');
  // As browsers send it: scheme://host[:port], no path, no trailing slash.
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/\s]+$/i.test(origin)) fail(`--allowed-origin wants id:scheme://host[:port], got "${item}"`);
  (origins[id] ??= []).push(origin);
}
const identified = new Set<string>();
for (const id of [...(values['require-user-token'] ?? []), ...list('PLATFORM_REQUIRE_USER_TOKEN')]) {
  known(id, '--require-user-token');
  identified.add(id);
}
const localBackends = new Set<string>();
for (const id of [...(values['local-backends'] ?? []), ...list('PLATFORM_LOCAL_BACKENDS')]) {
  known(id, '--local-backends');
  localBackends.add(id);
}
const ceilings: Record<string, number> = {};
for (const item of [...(values['max-connections-per-shard'] ?? []), ...list('PLATFORM_MAX_CONNECTIONS_PER_SHARD')]) {
  const [id, text] = pair(item, '--max-connections-per-shard');
  known(id, '--max-connections-per-shard');
  ceilings[id] = number(text, '--max-connections-per-shard')!;
}
const projects: Record<string, string | SignalingProject> = {};
for (const [id, token] of Object.entries(tokens)) {
  const project: SignalingProject = {
    token,
    ...(owners[id] === undefined ? {} : { ownerUserId: owners[id] }),
    ...(origins[id] === undefined ? {} : { allowedOrigins: origins[id] }),
    ...(identified.has(id) ? { requireUserToken: true } : {}),
    ...(localBackends.has(id) ? { backendJoinsFromLoopbackOnly: true } : {}),
    ...(ceilings[id] === undefined ? {} : { shardSizeCeiling: ceilings[id] }),
  };
  projects[id] = Object.keys(project).length === 1 ? token : project;
}

const keys: TokenKey[] = [...(values['token-key'] ?? []), ...list('PLATFORM_TOKEN_KEYS')].map((item) => {
  const [kid, secret] = pair(item, '--token-key');
  return { kid, secret };
});
const identitySecret = values['identity-secret'] ?? env['PLATFORM_IDENTITY_SECRET'];
if (identitySecret) keys.push({ kid: 'k1', secret: identitySecret });

const limits: Partial<SignalingLimits> = {};
const eventsPerSecond = number(values['max-events-per-second'], '--max-events-per-second');
if (eventsPerSecond !== undefined) Object.assign(limits, { maxEventsPerSecond: eventsPerSecond });
const joinsPerMinute = number(values['max-joins-per-address-per-minute'] ?? env['PLATFORM_MAX_JOINS_PER_ADDRESS_PER_MINUTE'], '--max-joins-per-address-per-minute');
if (joinsPerMinute !== undefined) Object.assign(limits, { maxJoinsPerAddressPerMinute: joinsPerMinute });
for (const [flag, key] of [
  ['max-json-depth', 'maxJsonDepth'],
  ['max-refusals', 'maxRefusals'],
  ['max-peer-messages-per-second', 'maxPeerMessagesPerSecond'],
  ['max-shards-per-address-per-minute', 'maxShardsPerAddressPerMinute'],
  ['max-info-shards', 'maxInfoShards'],
  ['max-unjoined-sockets-per-address', 'maxUnjoinedSocketsPerAddress'],
  ['max-spectators-per-shard', 'maxSpectatorsPerShard'],
  ['max-state-bytes', 'maxStateBytes'],
  ['history-events', 'historyEvents'],
] as const) {
  const value = number(values[flag] ?? env[`PLATFORM_${flag.toUpperCase().replaceAll('-', '_')}`], `--${flag}`);
  if (value !== undefined) Object.assign(limits, { [key]: value });
}
const trustProxy = number(values['trust-proxy'] ?? env['PLATFORM_TRUST_PROXY'], '--trust-proxy');
const heartbeatIntervalMs = number(values['heartbeat-ms'], '--heartbeat-ms');
const reconnectGraceMs = number(values['grace-ms'], '--grace-ms');
const meshMaxMembers = number(values['mesh-max'], '--mesh-max');
const maxUploadBytes = number(values['max-upload-bytes'] ?? env['PLATFORM_MAX_UPLOAD_BYTES'], '--max-upload-bytes');
const host = values.host ?? env['HOST'];
const dataDir = values['data-dir'] ?? env['PLATFORM_DATA_DIR'];
const adminKey = values['admin-key'] ?? env['PLATFORM_ADMIN_KEY'];
const cdnUrl = values['cdn-url'] ?? env['PLATFORM_CDN_URL'];
const redis = values.redis ?? env['PLATFORM_REDIS_URL'];
const nodeId = values['node-id'] ?? env['PLATFORM_NODE_ID'];
const leaseMs = number(values['lease-ms'] ?? env['PLATFORM_LEASE_MS'], '--lease-ms');
const secretKey = values['secret-key'] ?? env['PLATFORM_SECRET_KEY'];
const anonymous = values['allow-anonymous-tokens'] ?? ['1', 'true'].includes(env['PLATFORM_ALLOW_ANONYMOUS_TOKENS'] ?? '');

const options: SignalingServerOptions = {
  port: port(values.port ?? env['PORT']),
  ...(host ? { host } : {}),
  projects,
  limits,
  ...(keys.length > 0 ? { identity: { keys } } : {}),
  ...(dataDir ? { dataDir } : {}),
  ...(adminKey ? { adminKey } : {}),
  ...(cdnUrl ? { cdnUrl } : {}),
  ...(anonymous ? { allowAnonymousTokens: true } : {}),
  ...(maxUploadBytes !== undefined ? { uploadLimits: { maxUploadBytes } } : {}),
  ...(heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs } : {}),
  ...(reconnectGraceMs !== undefined ? { reconnectGraceMs } : {}),
  ...(meshMaxMembers !== undefined ? { meshMaxMembers } : {}),
  ...(trustProxy !== undefined ? { trustProxy } : {}),
  ...(redis ? { redis } : {}),
  ...(nodeId ? { nodeId } : {}),
  ...(leaseMs !== undefined ? { leaseMs } : {}),
  ...(secretKey ? { secretKey } : {}),
  log: (line) => console.error(line),
};
let server: ReturnType<typeof createSignalingServer>;
try {
  // Throws at once on a bad option (INVALID_CONFIG): a message, not a stack.
  server = createSignalingServer(options);
  await server.ready;
} catch (error) {
  fail(`cannot start: ${(error as Error).message}`);
}
console.log(`platform-kit signaling: ${server.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
