/**
 * `platform-kit/host/core`: the host without its Lit elements. TemplateFrame
 * (the iframe, its origin-checked link and call budget) and RemixSession (a
 * remix's values) are plain classes; a host page with its own UI (or another
 * framework) imports this entry and loads no Lit. `platform-kit/host`
 * re-exports all of it beside the editor and the feed. Nothing runs on import.
 */
export {
  DEFAULT_GUEST_LIMITS,
  TemplateFrame,
  type HostHandlers,
  type RefusedEvent,
  type TemplateFrameEvents,
  type TemplateFrameOptions,
  type TemplateFrameState,
  type UnlinkedEvent,
} from './template-frame.js';
export {
  RemixSession,
  parseBuiltCustomization,
  REMIX_CALLS,
  type AttachOptions,
  type RemixCall,
  type PresentControlEvent,
  type RemixSessionEvents,
  type RemixSessionOptions,
  type SetValueOptions,
  type ValueSource,
} from './remix-session.js';
export type { ControlPosition, EditorAttributes, ValueOverrides } from '../protocol/link.js';
export type { CallLimits } from '../protocol/call-budget.js';
export type { BuiltCustomization, VccFieldDefinition, VccScopeDefinition, VccType } from '../protocol/customization.js';
// The limits parseBuiltCustomization holds a customization to, for a host that shows them.
export { MAX_CUSTOMIZATION_FIELDS, MAX_CUSTOMIZATION_SCOPES, MAX_SCOPE_FIELDS } from '../protocol/customization.js';
export { PlatformError, isPlatformError, ERROR_CODES, type ErrorCode } from '../protocol/errors.js';
