/**
 * What a session's join says (protocol/signaling.ts JoinMessage): a first join
 * or a resume, a player or a spectator, here or away, with its state vector
 * and the recent events it asks for. Only data in, one frame out: the
 * session (session.ts) owns the connection it goes on. Platform.dispatch
 * makes the first one too, for the socket it opens while the session's module
 * loads (early-socket.ts): the session takes that socket only when its own
 * join, made here, is the same.
 */
// The parts, not the protocol/signaling.ts barrel: this module is in the first load too (dispatch.ts, the early socket).
import type { JoinMessage } from '../../protocol/client-frames.js';
import { SIGNALING_VERSION } from '../../protocol/signaling-endpoint.js';
import type { EventPayload, PresenceState } from '../../protocol/signaling-members.js';
import type { ConnectionInfo, DispatchConfigurationInput, SessionOptions } from './types.js';

/** Everything a join is made of. */
export interface JoinInputs {
  readonly id: number;
  readonly options: Pick<SessionOptions, 'projectId' | 'kind' | 'projectToken'>;
  readonly config: DispatchConfigurationInput;
  readonly authorization: string | undefined;
  readonly userInfo: EventPayload;
  /** What the member says it is as it joins (own-presence.ts). */
  readonly presence: PresenceState;
  /** A reconnection of a session that was connected as `previous`, holding `resumeToken`. Absent: a first join. */
  readonly resuming?: boolean;
  readonly previous?: ConnectionInfo | null;
  readonly resumeToken?: string;
  /** The shard state's vector, when a state is attached (state-port.ts). */
  readonly stateVector?: string | undefined;
  /**
   * The client has a mesh: it asks for the mesh's signalling on the control socket
   * (peer-transport.ts). A browser client without one (`mesh: false`, no WebRTC) says so instead.
   */
  readonly meshSignaling: boolean;
}

export function joinFrame(input: JoinInputs): JoinMessage {
  const { options, config, resuming } = input;
  // A spectator holds no place to resume: it watches anew. A client that took a seat plays on
  // after a reconnection, whatever its config said.
  const resumed = resuming ? input.previous : null;
  const resumes = resumed && !resumed.spectator;
  // Absent fields are left undefined: the frame leaves as JSON, which omits them (and keeps this
  // function small: it is in the guest's first load, for the early socket).
  const join = {
    type: 'join',
    v: SIGNALING_VERSION,
    id: input.id,
    projectId: options.projectId,
    kind: options.kind,
    projectToken: options.projectToken,
    shardName: config.shardName,
    maxConnectionsPerShard: config.maxConnectionsPerShard,
    authorization: input.authorization,
    userInfo: input.userInfo,
    state: input.presence === 'away' ? 'away' : undefined,
    spectator: (config.spectator === true && !resumes) || undefined,
    spectateWhenFull: config.spectateWhenFull === true || undefined,
    resume: resumes ? { clientId: resumed.clientId, resumeToken: input.resumeToken ?? '' } : undefined,
    stateVector: input.stateVector,
    // Only the first join asks for the recent events: a resume would replay them twice.
    history: (!resuming && config.history) || undefined,
    // The mesh's offers and candidates on this socket: no PeerJS socket to open and wait for (peer-transport.ts).
    meshSignaling: input.meshSignaling ? 'control' : undefined,
    // Relay only: no peer id is issued, so no member tries a data channel that could never open.
    mesh: input.meshSignaling || options.kind !== 'browser' ? undefined : false,
  } as const;
  return join as JoinMessage;
}
