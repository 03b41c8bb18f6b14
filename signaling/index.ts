/**
 * `platform-kit/signaling`: the Node side of Platform Kit: the signaling
 * server factory and `PlatformBackend` (Dispatch now; Identity and the
 * keystore join the namespace in later issues). Nothing listens on import.
 */
import { Dispatch } from './backend-dispatch.js';

export { PlatformError, isPlatformError, ERROR_CODES, type ErrorCode } from '../protocol/errors.js';
export {
  createSignalingServer,
  type SignalingLimits,
  type SignalingMetrics,
  type SignalingServer,
  type SignalingServerOptions,
} from './server.js';
export { Identity, type IdentityOptions, type IdentitySecret } from './identity.js';
export { createMemoryStore } from './store/memory-store.js';
export type { JoinOutcome, JoinRequest, MemberPatch, MemberRecord, ShardListener, ShardMessage, ShardStore } from './store/store.js';
export { Dispatch as BackendDispatch, controlUrl, type BackendConfigurationInput, type ResponseWithLocals } from './backend-dispatch.js';
export type {
  ConnectionInfo,
  DispatchConfigurationInput,
  DispatchMessageMetadata,
  MessageHandlerCallback,
  ConnectedClientsChangedHandlerCallback,
  DispatchErrorCallback,
} from '../guest/dispatch/session.js';
export type { ConnectedClient, EventPayload, ShardInfo } from '../protocol/signaling.js';
// Services (identity tokens, keystore, CDN) and the template-backend helpers.
export { Identity as BackendIdentity, requestUserToken, type IdentityOptions as BackendIdentityOptions, type RequestUserTokenOptions, type ResolvedUser } from './backend-identity.js';
export { Keystore, type KeystoreOptions, type UploadedFile } from './keystore.js';
export { VccMiddleware, createVccMiddleware, VCC_PUBLIC_KEY_ENV, type NodeMiddleware, type PlatformLocals, type VccMiddlewareOptions } from './vcc-middleware.js';
export { SERVICES_URL_ENV, DISPATCH_URL_ENV } from './services-client.js';
export {
  createServicesRouter,
  createServicesServer,
  type ServicesProject,
  type ServicesRouter,
  type ServicesRouterOptions,
  type ServicesServer,
  type ServicesServerOptions,
} from './services/router.js';
export { TokenIssuer, type TokenIssuerOptions, type TokenKey, type TokenRole, type UserAttributes, type VerifiedUser } from './services/identity.js';
export { FileSecretStore, SecretVault, type SecretStore } from './services/secret-store.js';
export { KNOWN_CONTENT_TYPES, type CdnLimits, type CdnTransform } from './services/cdn.js';
export { VCC_HEADER, signRemixContext, type RemixContext } from './services/vcc-headers.js';

/**
 * The backend namespace of the spec: `new PlatformBackend.Dispatch({ res })`.
 * A plain object so later issues add members (`Identity`, …) with one line.
 */
export const PlatformBackend = {
  /** A backend member of a shard; see {@link Dispatch}. */
  Dispatch,
} as const;
