/**
 * `platform-kit/host`: what a page that embeds templates imports. Plain
 * classes (TemplateFrame, RemixSession, in `./core.ts`, also published alone
 * as `platform-kit/host/core` for hosts without Lit) and the Lit elements
 * that build on them. Nothing runs on import.
 */
export * from './core.js';
export { defineHostElements } from './elements.js';
// The editor (issue 3): <platform-editor>, its controls, drafts, placement and history.
export {
  PlatformEditor,
  type EditorControlDetail,
  type EditorErrorDetail,
  type EditorReadyDetail,
  type EditorRemixingDetail,
  type EditorValueChangeDetail,
} from './editor/platform-editor.js';
export type { SessionStart, RefusedDraftValue } from './editor/session-controller.js';
export {
  VccControl,
  CONTROL_CHANGE_EVENT,
  CONTROL_COMMIT_EVENT,
  CONTROL_ERROR_EVENT,
  type ControlChangeDetail,
  type ControlCommitDetail,
  type ControlErrorDetail,
  type ControlServices,
  type StoreSecretFunction,
  type StoreSecretOptions,
  type UploadFunction,
  type UploadOptions,
} from './editor/controls/control-base.js';
export { CONTROL_TAGS, renderControl, type ControlSpec } from './editor/controls/render-control.js';
// One control element per VCC kind (controls/control-elements.ts) and the bases they share.
export * from './editor/controls/control-elements.js';
export { MediaControl, fileMatchesAccept } from './editor/controls/media-control.js';
export { NumberPairControl } from './editor/controls/number-pair-control.js';
export { listDrafts, loadDraft, saveDraft, discardDraft, DraftSaver, type Draft, type DraftSaverOptions, type DraftSummary } from './editor/drafts.js';
export { placeOverlay, templateToViewport, type Placement, type PlacementInput } from './editor/overlay-position.js';
export { EditHistory, type EditHistoryOptions, type HistoryEntry } from './editor/history.js';
// The feed (issue 4): <platform-feed> over FeedController, items, feedDebug and viewing contexts.
export {
  FeedController,
  type FeedAction,
  type FeedControllerEvents,
  type FeedControllerOptions,
  type FeedInsets,
  type FeedItemStatus,
  type FeedLoader,
  type FeedLoadRequest,
  type FeedShareData,
  type GetIdentityToken,
  type RateLimit,
  type SkipReason,
} from './feed/feed-controller.js';
export { PlatformFeed, PLATFORM_FEED_EVENTS } from './feed/platform-feed.js';
export type { PlatformFeedEventMap } from './feed/feed-events.js';
export { checkFeedUrl, feedDebugItems, feedItemSrc, FEED_DEBUG_REPEAT, type FeedItem } from './feed/feed-items.js';
export { getViewingContext, isFeedDebug, withViewingContext, VIEWING_CONTEXTS, type ViewingContext } from '../guest/context.js';
export { createIdentityHandler, type IdentityHandlerOptions } from './identity.js';
