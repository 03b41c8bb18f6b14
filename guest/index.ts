/**
 * `platform-kit/guest`: what a template imports. Browser only; nothing runs
 * on import. See docs/templates.md for a short template example.
 */
export { InstantRemixing, type ActivePathHandler, type RemixingHandler, type ValueChangedHandler } from './instant-remixing.js';
export type { CallErrorHandler } from './call-failures.js';
export { FeedSdk, type CreateRemixOptions, type FeedInsets, type InsetsHandler, type PlaybackStateHandler } from './feed-sdk.js';
export { configureGuestLink, type GuestLinkOptions, type GuestLinkState } from './link.js';
export { defineCustomization, getBuiltCustomization } from './registry.js';
export { getViewingContext, isFeedDebug, withViewingContext, VIEWING_CONTEXTS, type ViewingContext } from './context.js';
export type { CustomizationTypes, PredefinedValues, VccValueAt, VccValuePath } from './types.js';
export type { EditorAttributes } from '../protocol/link.js';
export type { BuiltCustomization, VccFieldDefinition, VccScopeDefinition } from '../protocol/customization.js';
export { PlatformError, isPlatformError, ERROR_CODES, type ErrorCode } from '../protocol/errors.js';
export { Platform } from './platform.js';
export type { IdentityTokenResult, PlatformIdentity } from './identity.js';
export {
  createDispatch,
  type BrowserDispatch,
  type BrowserDispatchOptions,
  type ConnectedClient,
  type ConnectionInfo,
  type DispatchConfigurationInput,
  type DispatchMessageMetadata,
  type EventPayload,
  type MessageHandlerCallback,
  type ShardInfo,
} from './dispatch/index.js';
