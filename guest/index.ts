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
// From the module itself, not the folder's index: that one also names peer-budget.ts, which a
// bundler with code splitting would then fetch in the first load as a chunk of its own, unused.
export { createDispatch, type BrowserDispatch, type BrowserDispatchOptions } from './dispatch/dispatch.js';
export type { ConnectedClient, ConnectionInfo, DispatchConfigurationInput, DispatchMessageMetadata, EventPayload, MessageHandlerCallback, ShardInfo } from './dispatch/index.js';
