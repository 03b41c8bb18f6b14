/**
 * Who may join, checked before anything is placed: the protocol version, the
 * project and its rules (the backend's project token, allowedOrigins,
 * requireUserToken, the project's shard size ceiling), the shard name and the size of
 * `userInfo`; then the join allowance of the client's address
 * (SignalingLimits.maxJoinsPerAddressPerMinute), and the user token of
 * `connect({ authorization })`. A check that fails answers (and for the
 * project's rules closes) here; the caller only stops.
 */
import { serializeError } from '../../protocol/errors.js';
import { utf8Length } from '../../protocol/data.js';
import {
  CLOSE_CODES,
  DEFAULT_MAX_CONNECTIONS_PER_SHARD,
  isShardName,
  MAX_CONNECTIONS_PER_SHARD_LIMIT,
  MIN_SIGNALING_VERSION,
  SIGNALING_VERSION,
  type EventPayload,
  type JoinMessage,
} from '../../protocol/signaling.js';
import { projectOf } from '../projects.js';
import type { SignalingProject } from '../server-options.js';
import { sameSecret } from '../services/http.js';
import type { Connection } from './control-socket.js';
import type { ServerContext } from './context.js';
import { fail, refuse } from './refusals.js';

/** The `userInfo` of every member that set none: one frozen object, not one per member. */
export const NO_USER_INFO: EventPayload = Object.freeze({});

function isEmpty(value: EventPayload): boolean {
  for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key)) return false;
  return true;
}

/** A join that passed {@link checkJoin}. */
export interface CheckedJoin {
  readonly project: SignalingProject;
  /** The capacity the client asked for, lowered to the project's ceiling. */
  readonly maxConnectionsPerShard: number;
  /** The member's `userInfo` ({@link NO_USER_INFO} when empty). */
  readonly userInfo: EventPayload;
}

/** Checks a join against the protocol and its project; null once it was refused (answered, maybe closed). */
export function checkJoin(ctx: ServerContext, connection: Connection, message: JoinMessage): CheckedJoin | null {
  const id = message.id;
  if (connection.state !== 'new') {
    fail(ctx, connection, 'INVALID_MESSAGE', 'already joined', { id });
    return null;
  }
  if (message.v < MIN_SIGNALING_VERSION || message.v > SIGNALING_VERSION) {
    fail(ctx, connection, 'UNSUPPORTED', `protocol version ${message.v}; this server speaks ${MIN_SIGNALING_VERSION} to ${SIGNALING_VERSION}`, { id });
    return null;
  }
  const project = projectOf(ctx.projects, message.projectId);
  if (project === undefined) {
    refuse(ctx, connection, 'UNAUTHORIZED', `unknown project "${message.projectId}"`, id);
    return null;
  }
  if (message.kind === 'backend' && (message.projectToken === undefined || !sameSecret(message.projectToken, project.token))) {
    refuse(ctx, connection, 'UNAUTHORIZED', 'a backend client needs its project token', id);
    return null;
  }
  if (message.kind === 'backend' && project.backendJoinsFromLoopbackOnly === true && !connection.fromLoopback) {
    refuse(ctx, connection, 'FORBIDDEN', `project "${message.projectId}" admits backend clients from its server's own machine only`, id);
    return null;
  }
  // Browsers send the page's origin with the upgrade and no page can forge it; backends are not pages.
  if (message.kind === 'browser' && project.allowedOrigins !== undefined && !project.allowedOrigins.includes(connection.origin)) {
    const from = connection.origin === '' ? 'a socket without an Origin' : `origin ${connection.origin}`;
    refuse(ctx, connection, 'ORIGIN_REFUSED', `${from} may not join project "${message.projectId}"`, id, CLOSE_CODES.ORIGIN_REFUSED);
    return null;
  }
  if (message.kind === 'browser' && project.requireUserToken === true && message.authorization === undefined) {
    refuse(ctx, connection, 'UNAUTHORIZED', `project "${message.projectId}" admits identified users only: connect with a user token`, id);
    return null;
  }
  if (message.shardName !== undefined && !isShardName(message.shardName)) {
    fail(ctx, connection, 'INVALID_NAME', 'a shard name is 1 to 64 of A-Z a-z 0-9 _ -, starting with a letter or digit', { id });
    return null;
  }
  const requested = message.maxConnectionsPerShard ?? DEFAULT_MAX_CONNECTIONS_PER_SHARD;
  if (requested < 1 || requested > MAX_CONNECTIONS_PER_SHARD_LIMIT) {
    fail(ctx, connection, 'INVALID_ARGUMENT', `maxConnectionsPerShard must be 1 to ${MAX_CONNECTIONS_PER_SHARD_LIMIT}`, { id });
    return null;
  }
  // The project's ceiling (SignalingProject.shardSizeCeiling) lowers what a client asks for: the shard's capacity.
  const ceiling = project.shardSizeCeiling ?? project.maxConnectionsPerShard ?? MAX_CONNECTIONS_PER_SHARD_LIMIT;
  const maxConnectionsPerShard = Math.min(requested, ceiling);
  // An empty userInfo (what most joins carry) is shared, not kept once per member.
  const userInfo = message.userInfo === undefined || isEmpty(message.userInfo) ? NO_USER_INFO : message.userInfo;
  if (userInfo !== NO_USER_INFO && utf8Length(JSON.stringify(userInfo)) > ctx.limits.maxUserInfoBytes) {
    fail(ctx, connection, 'VALUE_TOO_LARGE', 'userInfo is over the limit', { id });
    return null;
  }
  return { project, maxConnectionsPerShard, userInfo };
}

/** Takes one join of the connection's address (SignalingLimits.maxJoinsPerAddressPerMinute). */
export async function admitJoin(ctx: ServerContext, connection: Connection): Promise<boolean> {
  if (!ctx.settings.joinLimited) return true;
  const perMinute = ctx.limits.maxJoinsPerAddressPerMinute;
  try {
    const admitted = ctx.localJoins ? ctx.localJoins.take(connection.address, perMinute) : await ctx.store.takeJoin!(connection.address, perMinute);
    if (ctx.joinLimitFailing) ctx.log('platform-kit: the join limit answers again');
    ctx.joinLimitFailing = false;
    return admitted;
  } catch (error) {
    // Fail open: a store blip must not lock every client out; a join that needs the
    // store answers UNAVAILABLE right after, which clients retry.
    if (!ctx.joinLimitFailing) ctx.log(`platform-kit: join limit unavailable, admitting joins meanwhile: ${String(error)}`);
    ctx.joinLimitFailing = true;
    return true;
  }
}

/** Who the joining client is, from its user token. */
export interface JoinIdentity {
  readonly userId: string | null;
  /** Why the token failed, told to a client that stays connected unidentified. */
  readonly identifyError: ReturnType<typeof serializeError> | null;
}

/** Verifies the join's user token, if any; null once the join was refused for it (requireUserToken). */
export async function verifyJoinUser(ctx: ServerContext, connection: Connection, message: JoinMessage, project: SignalingProject): Promise<JoinIdentity | null> {
  if (message.authorization === undefined) return { userId: null, identifyError: null };
  try {
    return { userId: (await ctx.running().services.tokens.verify(message.projectId, message.authorization)).id, identifyError: null };
  } catch (error) {
    // The client stays connected, unidentified, and is told why; unless the project admits only identified users.
    // UNAUTHORIZED, whatever the token's fault: the client stops reconnecting with it (a retry cannot help).
    if (message.kind === 'browser' && project.requireUserToken === true) {
      const why = error instanceof Error ? error.message : String(error);
      refuse(ctx, connection, 'UNAUTHORIZED', `project "${message.projectId}" admits identified users only: ${why}`, message.id);
      return null;
    }
    return { userId: null, identifyError: serializeError(error) };
  }
}
