/**
 * Draws the control element of a VCC type. The editor, the array control
 * and the object control all go through here, so a nested `array<object>`
 * gets the same controls as a top-level field.
 */
import type { TemplateResult } from 'lit';
import { html, unsafeStatic, type StaticValue } from 'lit/static-html.js';
import { VCC_KINDS, type VccKind, type VccType } from '../../../protocol/customization.js';
import type { PlainData, VccPath } from '../../../protocol/data.js';
import type { ControlServices } from './control-base.js';

/** What a control is drawn with. */
export interface ControlSpec {
  readonly path: VccPath;
  readonly type: VccType;
  readonly value: PlainData | undefined;
  readonly label: string;
  readonly description?: string;
  readonly services: ControlServices;
  readonly disabled?: boolean;
  /** Shown under the control (a value the session refused). */
  readonly error?: string;
}

/** Tag name of the control element for each VCC type kind: each kind's `control` in protocol/vcc-kinds.ts. */
export const CONTROL_TAGS = Object.freeze(Object.fromEntries((Object.keys(VCC_KINDS) as VccKind[]).map((kind) => [kind, VCC_KINDS[kind].control]))) as {
  readonly [Kind in VccKind]: (typeof VCC_KINDS)[Kind]['control'];
};

// Lit needs a tag in a template's static strings: each kind's tag as a static value, made once.
// unsafeStatic is safe here: the tags are the table's constants, never input.
const STATIC_TAGS = Object.fromEntries((Object.keys(CONTROL_TAGS) as VccKind[]).map((kind) => [kind, unsafeStatic(CONTROL_TAGS[kind])])) as {
  readonly [Kind in VccKind]: StaticValue;
};

/** The control element for `spec.type`: an unknown type gets the JSON fallback. */
export function renderControl(spec: ControlSpec): TemplateResult {
  const p = spec;
  const tag = STATIC_TAGS[p.type.kind];
  return html`<${tag} data-kind=${p.type.kind} .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></${tag}>`;
}
