/**
 * The remix bar of `<platform-editor>`: Remix and Preview, Undo and Redo,
 * the status line, Customize (the compact layout of `type="full"`) and
 * Finish. In the compact layout it sits at the bottom, within thumb reach,
 * with icons for Undo and Redo (named for screen readers) and only the one
 * of Remix and Preview that is not pressed (editor-styles.ts).
 */
import { html, nothing, type TemplateResult } from 'lit';

/** What the bar is drawn with. */
export interface BarSpec {
  /** False in the preview. */
  readonly remixing: boolean;
  readonly compact: boolean;
  /** `type="full"`: in the compact layout, a Customize button brings up the panel's sheet. */
  readonly full: boolean;
  readonly canUndo: boolean;
  readonly canRedo: boolean;
  /** The status line's message ('' for none). */
  readonly status: string;
  /** The panel's sheet is up (Customize is expanded). */
  readonly panelOpen: boolean;
  readonly switchTo: (isRemixing: boolean) => void;
  readonly undo: () => void;
  readonly redo: () => void;
  readonly togglePanel: () => void;
  readonly finish: () => void;
}

/** The bar element (a toolbar: arrow keys move between its buttons). */
export function renderBar(spec: BarSpec): TemplateResult {
  const { compact, remixing } = spec;
  return html`<div class=${compact ? 'bar compact' : 'bar'} role="toolbar" aria-label="Remix" @keydown=${onToolbarKeydown}>
    <button id="remix" type="button" aria-pressed=${remixing ? 'true' : 'false'} @click=${() => spec.switchTo(true)}>Edit</button>
    <button id="preview" type="button" aria-pressed=${remixing ? 'false' : 'true'} @click=${() => spec.switchTo(false)}>Preview</button>
    <button id="undo" type="button" aria-label=${compact ? 'Undo' : nothing} aria-keyshortcuts="Control+Z" ?disabled=${!spec.canUndo} @click=${spec.undo}>${compact ? '↶' : 'Undo'}</button>
    <button id="redo" type="button" aria-label=${compact ? 'Redo' : nothing} aria-keyshortcuts="Control+Shift+Z Control+Y" ?disabled=${!spec.canRedo} @click=${spec.redo}>${compact ? '↷' : 'Redo'}</button>
    <span class="status" role="status">${spec.status}</span>
    ${
      compact && spec.full
        ? html`<button id="customize" type="button" aria-controls="panel" aria-expanded=${spec.panelOpen ? 'true' : 'false'} ?disabled=${!remixing} @click=${spec.togglePanel}>Customize</button>`
        : nothing
    }
    <button id="finish" class="finish" type="button" ?disabled=${!remixing} @click=${spec.finish}>Finish</button>
  </div>`;
}

function onToolbarKeydown(event: KeyboardEvent): void {
  // Arrow keys move between the bar's buttons (the toolbar pattern); tab still leaves it.
  if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
  const bar = event.currentTarget as HTMLElement;
  const buttons = [...bar.querySelectorAll<HTMLButtonElement>('button:not(:disabled)')];
  const index = buttons.indexOf(event.target as HTMLButtonElement);
  if (index < 0) return;
  event.preventDefault();
  buttons[(index + (event.key === 'ArrowRight' ? 1 : buttons.length - 1)) % buttons.length]?.focus();
}
