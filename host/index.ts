/**
 * `platform-kit/host`: what a page that embeds templates imports. Plain
 * classes (TemplateFrame, RemixSession) that the Lit elements build on.
 * Nothing runs on import.
 */
export { TemplateFrame, type HostHandlers, type RefusedEvent, type TemplateFrameEvents, type TemplateFrameOptions, type TemplateFrameState } from './template-frame.js';
export {
  RemixSession,
  parseBuiltCustomization,
  type PresentControlEvent,
  type RemixSessionEvents,
  type RemixSessionOptions,
  type SetValueOptions,
  type ValueSource,
} from './remix-session.js';
export type { ControlPosition, EditorAttributes, ValueOverrides } from '../protocol/link.js';
export type { BuiltCustomization, VccFieldDefinition, VccScopeDefinition, VccType } from '../protocol/customization.js';
export { PlatformError, isPlatformError, ERROR_CODES, type ErrorCode } from '../protocol/errors.js';
export { defineHostElements } from './elements.js';
