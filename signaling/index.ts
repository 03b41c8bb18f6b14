/**
 * `platform-kit/signaling`: the Node side of Platform Kit.
 *
 * - {@link createSignalingServer}: one HTTP server for shards (control
 *   WebSocket, PeerJS signaling), identity tokens, the keystore, signed URLs
 *   and the project CDN. A factory: nothing listens on import.
 * - {@link PlatformBackend}: the backend clients of the spec,
 *   `new PlatformBackend.Dispatch({ res })` and `new PlatformBackend.Identity({ res })`.
 * - {@link Keystore} and {@link VccMiddleware}: a template backend's secrets,
 *   signed URLs and per-remix values.
 * - {@link requestUserToken}: for a host backend that vouches for its user.
 */
import { Dispatch } from './backend-dispatch.js';
import { Identity } from './backend-identity.js';

export { PlatformError, isPlatformError, ERROR_CODES, type ErrorCode } from '../protocol/errors.js';

// The server.
export {
  createSignalingServer,
  type SignalingLimits,
  type SignalingMetrics,
  type SignalingProject,
  type SignalingServer,
  type SignalingServerOptions,
  type UserTokenOptions,
} from './server.js';
// The services alone, to mount in another HTTP server (createSignalingServer already mounts them).
export { createServicesRouter, type ServicesProject, type ServicesRouter, type ServicesRouterOptions } from './services/router.js';
export type { TokenIssuer, TokenKey, TokenRole, UserAttributes, VerifiedUser } from './services/identity.js';
export type { SecretStore } from './services/secret-store.js';
export { KNOWN_CONTENT_TYPES, type CdnLimits, type CdnTransform } from './services/cdn.js';
export { VCC_HEADER, type RemixContext } from './services/vcc-headers.js';
export { createMemoryStore } from './store/memory-store.js';
export { createRedisStore, type RedisShardStore, type RedisStoreOptions } from './store/redis-store.js';
export { createRedisSecretStore, type RedisSecretStoreOptions } from './services/redis-secret-store.js';
export type { JoinOutcome, JoinRequest, MemberPatch, MemberRecord, ShardBroadcastListener, ShardBroadcast, ShardStore } from './store/store.js';

// The backend clients.
export type { BackendConfigurationInput, ResponseWithLocals } from './backend-dispatch.js';
export { shardState } from './backend-state.js';
export type { ShardState, StateMap } from '../guest/state/shard-state.js';
export type { IdentityOptions, ResolvedUser } from './backend-identity.js';
export { requestUserToken, type RequestUserTokenOptions } from './backend-identity.js';
export type {
  ConnectionInfo,
  DispatchConfigurationInput,
  DispatchMessageMetadata,
  MessageHandlerCallback,
  ConnectedClientsChangedHandlerCallback,
  DispatchErrorCallback,
} from '../guest/dispatch/types.js';
export type { ConnectedClient, EventPayload, ShardInfo } from '../protocol/signaling.js';
export { Keystore, type KeystoreOptions, type UploadedFile } from './keystore.js';
export { VccMiddleware, VCC_PUBLIC_KEY_ENV, type NodeMiddleware, type PlatformLocals, type VccMiddlewareOptions } from './vcc-middleware.js';
export { platformErrorHandler, type ErrorMiddleware, type PlatformErrorHandlerOptions } from './error-handler.js';
export { SERVICES_URL_ENV, DISPATCH_URL_ENV } from './services-client.js';

/**
 * The backend namespace of the spec:
 * - `new PlatformBackend.Dispatch({ res })`: a backend member of a shard (relay only);
 * - `new PlatformBackend.Identity({ res })`: `getToken()` → `{ token }` for the
 *   backend itself, `resolveUserFromToken(token)` → who a browser's token belongs to.
 */
export const PlatformBackend = {
  /** A backend member of a shard; see {@link Dispatch}. */
  Dispatch,
  /** User tokens on the backend; see {@link Identity}. */
  Identity,
} as const;

/** The instance types of the namespace's classes: `let dispatch: PlatformBackend.Dispatch`. */
// The spec's name is `PlatformBackend.Dispatch` (a namespace of classes), so a namespace it is.
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace PlatformBackend {
  /** An instance of `PlatformBackend.Dispatch`. */
  type Dispatch = InstanceType<typeof PlatformBackend.Dispatch>;
  /** An instance of `PlatformBackend.Identity`. */
  type Identity = InstanceType<typeof PlatformBackend.Identity>;
}
