/**
 * The side panel of `<platform-editor type="full">`: every VCC of the
 * template, grouped by scope, each drawn with the control of its type.
 * A scope is a section whose heading opens and closes it; only an open
 * scope's controls are in the DOM (panel-scopes.ts says which are open).
 */
import { html, nothing, type TemplateResult } from 'lit';
import { parseVccType, PREDEFINED_SCOPES, type BuiltCustomization, type VccFieldDefinition, type VccType } from '../../protocol/customization.js';
import { samePath, type VccPath } from '../../protocol/data.js';
import type { RemixSession } from '../remix-session.js';
import type { ScopesPass } from './panel-scopes.js';

/** What the panel is drawn with. */
export interface PanelSpec {
  /** The template's customization; null while it is not known yet. */
  readonly customization: BuiltCustomization | null;
  /** Why there is no customization yet (it was refused, the template failed), shown instead of "Loading". */
  readonly loadError: string | null;
  /** False in the preview: the controls are disabled. */
  readonly remixing: boolean;
  /** Draws the control of one field. */
  readonly renderField: (path: VccPath, field: VccFieldDefinition, type: VccType, disabled: boolean) => TemplateResult;
  /** What the focus moving in and out of the panel tells the template ({@link panelFocusFollower}). */
  readonly focus: PanelFocus;
  /** Which scopes are open, how many of their controls to draw now, and the toggle of their headings. */
  readonly scopes: ScopesPass | null;
  /** In the compact layout the panel is a bottom sheet, up or not, with a close button; null: a side panel. */
  readonly sheet: { readonly open: boolean; readonly close: () => void } | null;
}

/** The panel element. Each field sits in a holder whose `data-path` is its path as JSON. */
export function renderPanel(spec: PanelSpec): TemplateResult {
  const { customization, sheet } = spec;
  const body =
    customization && spec.scopes
      ? panelScopes(customization, spec.scopes, spec)
      : spec.loadError !== null
        ? html`<p class="status load-error">The template cannot be customized here: ${spec.loadError}</p>`
        : html`<p class="status">Loading the template…</p>`;
  if (!sheet) {
    return html`<aside class="panel" id="panel" aria-label="Customize" @focusin=${spec.focus.in} @focusout=${spec.focus.out}>${body}</aside>`;
  }
  const onKeydown = (event: KeyboardEvent): void => {
    // A control that uses escape itself (an upload to cancel, a draft to drop) stops it first.
    if (event.key !== 'Escape' || event.defaultPrevented) return;
    event.preventDefault();
    event.stopPropagation();
    sheet.close();
  };
  return html`<aside
    class=${sheet.open ? 'panel sheet open' : 'panel sheet'}
    id="panel"
    role="dialog"
    aria-modal="false"
    aria-labelledby="panel-title"
    tabindex="-1"
    @focusin=${spec.focus.in}
    @focusout=${spec.focus.out}
    @keydown=${onKeydown}
  >
    <header class="sheet-head">
      <span class="handle" aria-hidden="true"></span>
      <h2 id="panel-title">Customize</h2>
      <button class="close" type="button" aria-label="Close Customize" @click=${sheet.close}>✕</button>
    </header>
    ${body}
  </aside>`;
}

function panelScopes(customization: BuiltCustomization, scopes: ScopesPass, spec: PanelSpec): TemplateResult[] {
  return customization.editor
    .filter((scope) => !PREDEFINED_SCOPES.has(scope.key))
    .map((scope) => {
      const open = scopes.isOpen(scope.key);
      const shown = scopes.shown(scope.key, scope.fields.length);
      // The disclosure pattern (a button in the heading, aria-expanded): a closed scope costs one
      // button, where each control is an element with a shadow root of its own.
      return html`<section class=${open ? 'scope open' : 'scope'} data-scope=${scope.key} aria-labelledby=${`scope-${scope.key}`}>
        <h2><button type="button" id=${`scope-${scope.key}`} aria-expanded=${open ? 'true' : 'false'} aria-controls=${`scope-body-${scope.key}`} @click=${() => scopes.toggle(scope.key)}>${scope.name ?? scope.key}</button></h2>
        <div class="scope-body" id=${`scope-body-${scope.key}`} ?hidden=${!open}>
          ${
            open
              ? html`${scope.description ? html`<p class="scope-description">${scope.description}</p>` : nothing}
              ${scope.fields.slice(0, shown).map((field) => {
                const path = [scope.key, field.key];
                return html`<div class="field" data-path=${JSON.stringify(path)}>${spec.renderField(path, field, fieldType(field), !spec.remixing)}</div>`;
              })}`
              : nothing
          }
        </div>
      </section>`;
    });
}

/** The parsed type of a field; a definition with bad options still gets a control: the JSON fallback. */
export function fieldType(field: VccFieldDefinition): VccType {
  try {
    return parseVccType(field.type, field.typeOptions);
  } catch {
    return { kind: 'unknown', name: field.type };
  }
}

/** Focus handlers of the panel. */
export interface PanelFocus {
  readonly in: (event: FocusEvent) => void;
  readonly out: (event: FocusEvent) => void;
}

/**
 * The field with the focus in the panel is the template's active path (its
 * onSetActivePath), null once the focus leaves the panel; while an overlay
 * is open, the overlay's control is the active one instead.
 */
export function panelFocusFollower(options: { readonly session: () => RemixSession | null; readonly overlayOpen: () => boolean }): PanelFocus {
  return {
    in: (event) => {
      const session = options.session();
      if (options.overlayOpen() || !session?.remixing) return;
      const holder = (event.target as Element).closest<HTMLElement>('[data-path]');
      const path = holder ? (JSON.parse(holder.dataset['path'] ?? '[]') as string[]) : null;
      if (path && !samePath(path, session.activePath)) session.setActivePath(path);
    },
    out: (event) => {
      if (options.overlayOpen()) return;
      const next = event.relatedTarget as Node | null;
      if (next && (event.currentTarget as Element).contains(next)) return;
      options.session()?.setActivePath(null);
    },
  };
}
