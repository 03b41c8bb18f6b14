/**
 * The events `<platform-editor>` sends and their details, registered in
 * HTMLElementEventMap so listeners are typed.
 */
import type { PlainData } from '../../protocol/data.js';
import type { PlatformError } from '../../protocol/errors.js';
import type { ValueSource } from '../remix-session.js';
import type { SessionStart } from './session-controller.js';

/** Detail of `platform-editor-ready`. */
export interface EditorReadyDetail extends SessionStart {}

/** Detail of `platform-value-change`: a value changed (by a control, the template, undo/redo or a draft). */
export interface EditorValueChangeDetail {
  readonly path: readonly string[];
  readonly value: PlainData;
  readonly source: ValueSource;
}

/** Detail of `platform-editor-error`: a refused value (from the template, a draft or a control) or a failure. */
export interface EditorErrorDetail {
  readonly error: PlatformError;
  /** The VCC path concerned, when there is one. */
  readonly path?: readonly string[];
}

/** Detail of `platform-control-open` and `platform-control-close`. */
export interface EditorControlDetail {
  readonly path: readonly string[];
}

/** Detail of `platform-remixing-change`. */
export interface EditorRemixingDetail {
  readonly isRemixing: boolean;
}

// The element's tag is declared beside its class (platform-editor.ts): this file is read by the
// element's parts (control-overlay.ts), which the element imports.
declare global {
  interface HTMLElementEventMap {
    'platform-editor-ready': CustomEvent<EditorReadyDetail>;
    'platform-value-change': CustomEvent<EditorValueChangeDetail>;
    'platform-editor-error': CustomEvent<EditorErrorDetail>;
    'platform-control-open': CustomEvent<EditorControlDetail>;
    'platform-control-close': CustomEvent<EditorControlDetail>;
    'platform-remixing-change': CustomEvent<EditorRemixingDetail>;
    'platform-finish': CustomEvent<undefined>;
  }
}
