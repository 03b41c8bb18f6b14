/**
 * What a session's join says (protocol/signaling.ts JoinMessage): a first join
 * or a resume, a player or a spectator, here or away, with its state vector
 * and the recent events it asks for. Only data in, one frame out: the
 * session (session.ts) owns the connection it goes on.
 */
import { SIGNALING_VERSION, type EventPayload, type JoinMessage, type PresenceState } from '../../protocol/signaling.js';
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
  /** A reconnection of a session that was connected as `previous`, holding `resumeToken`. */
  readonly resuming: boolean;
  readonly previous: ConnectionInfo | null;
  readonly resumeToken: string;
  /** The shard state's vector, when a state is attached (state-port.ts). */
  readonly stateVector: string | undefined;
  /**
   * The client has a mesh: it asks for the mesh's signalling on the control socket
   * (peer-transport.ts). A browser client without one (`mesh: false`, no WebRTC) says so instead.
   */
  readonly meshSignaling: boolean;
}

export function joinFrame(input: JoinInputs): JoinMessage {
  const { options, config, resuming, previous } = input;
  return {
    type: 'join',
    v: SIGNALING_VERSION,
    id: input.id,
    projectId: options.projectId,
    kind: options.kind,
    ...(options.projectToken !== undefined ? { projectToken: options.projectToken } : {}),
    ...(config.shardName !== undefined ? { shardName: config.shardName } : {}),
    ...(config.maxConnectionsPerShard !== undefined ? { maxConnectionsPerShard: config.maxConnectionsPerShard } : {}),
    ...(input.authorization !== undefined ? { authorization: input.authorization } : {}),
    userInfo: input.userInfo,
    ...(input.presence === 'away' ? { state: 'away' } : {}),
    // A client that took a seat plays on after a reconnection, whatever its config said.
    ...(config.spectator === true && !(resuming && previous && !previous.spectator) ? { spectator: true } : {}),
    ...(config.spectateWhenFull === true ? { spectateWhenFull: true } : {}),
    // A spectator holds no place to resume: it watches anew.
    ...(resuming && previous && !previous.spectator ? { resume: { clientId: previous.clientId, resumeToken: input.resumeToken } } : {}),
    ...(input.stateVector !== undefined ? { stateVector: input.stateVector } : {}),
    // Only the first join asks for the recent events: a resume would replay them twice.
    ...(!resuming && config.history ? { history: config.history } : {}),
    // The mesh's offers and candidates on this socket: no PeerJS socket to open and wait for (peer-transport.ts).
    // Relay only: no peer id is issued, so no member tries a data channel that could never open.
    ...(input.meshSignaling ? { meshSignaling: 'control' } : options.kind === 'browser' ? { mesh: false } : {}),
  };
}
