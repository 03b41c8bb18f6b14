/**
 * Where and how a client reaches the signaling server: the wire's version,
 * the control socket's path, and the pattern of the project id it names. Apart
 * from signaling-constants.ts (which re-exports them) because the guest's first
 * load needs only these: a bundler with code splitting fetches every constant a
 * module holds that any chunk uses together with the module's first user.
 */
/**
 * Version of this wire. v2 adds the join in the WebSocket handshake and
 * batched presence (`op: 'batch'`). A server refuses a `join` of a version
 * outside MIN_SIGNALING_VERSION (signaling-constants.ts) to this one with `UNSUPPORTED`.
 */
export const SIGNALING_VERSION = 2;

/** Path of the control WebSocket. */
export const CONTROL_PATH = '/dispatch';

/** Project ids: 1 to 128 of `A-Z a-z 0-9 _ . -`. */
export const PROJECT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
