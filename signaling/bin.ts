#!/usr/bin/env node
/**
 * `platform-kit-server`: runs the signaling server.
 *
 *   platform-kit-server --port 8787 --project demo:SECRET [--project other:SECRET2]
 *
 * Options (each also from the environment):
 *   --port N              PORT (default 8787; 0 picks a free port)
 *   --host H              HOST (default: every interface)
 *   --project id:token    PLATFORM_PROJECTS="id:token,id2:token2" (or PLATFORM_PROJECT_ID + PLATFORM_PROJECT_TOKEN)
 *   --identity-secret S   PLATFORM_IDENTITY_SECRET (≥ 32 bytes; default: random per process)
 *   --heartbeat-ms N      --grace-ms N   --mesh-max N   --max-events-per-second N
 *
 * Prints one line `platform-kit signaling: http://HOST:PORT` once it listens
 * (tests read the URL from it) and stops cleanly on SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { createSignalingServer, type SignalingLimits } from './server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    project: { type: 'string', multiple: true },
    'identity-secret': { type: 'string' },
    'heartbeat-ms': { type: 'string' },
    'grace-ms': { type: 'string' },
    'mesh-max': { type: 'string' },
    'max-events-per-second': { type: 'string' },
  },
  strict: true,
});

const env = process.env;
const projects: Record<string, string> = {};
const pairs = [...(values.project ?? []), ...(env['PLATFORM_PROJECTS']?.split(',') ?? [])];
for (const pair of pairs) {
  const at = pair.indexOf(':');
  if (at <= 0) throw new Error(`platform-kit: --project wants id:token, got "${pair}"`);
  projects[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
}
if (env['PLATFORM_PROJECT_ID'] && env['PLATFORM_PROJECT_TOKEN']) projects[env['PLATFORM_PROJECT_ID']] = env['PLATFORM_PROJECT_TOKEN'];
if (Object.keys(projects).length === 0) {
  console.error('platform-kit: no project configured (use --project id:token or PLATFORM_PROJECTS)');
  process.exit(2);
}

const number = (text: string | undefined): number | undefined => (text === undefined ? undefined : Number(text));
const secret = values['identity-secret'] ?? env['PLATFORM_IDENTITY_SECRET'];
const limits: Partial<SignalingLimits> = {};
const eventsPerSecond = number(values['max-events-per-second']);
if (eventsPerSecond !== undefined) Object.assign(limits, { maxEventsPerSecond: eventsPerSecond });
const heartbeatIntervalMs = number(values['heartbeat-ms']);
const reconnectGraceMs = number(values['grace-ms']);
const meshMaxMembers = number(values['mesh-max']);
const host = values.host ?? env['HOST'];

const server = createSignalingServer({
  port: number(values.port ?? env['PORT']) ?? 8787,
  ...(host ? { host } : {}),
  projects,
  limits,
  ...(secret ? { identity: { secrets: [{ kid: 'k1', secret }] } } : {}),
  ...(heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs } : {}),
  ...(reconnectGraceMs !== undefined ? { reconnectGraceMs } : {}),
  ...(meshMaxMembers !== undefined ? { meshMaxMembers } : {}),
  log: (line) => console.error(line),
});
await server.ready;
console.log(`platform-kit signaling: ${server.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
