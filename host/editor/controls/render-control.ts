/**
 * Draws the control element of a VCC type. The editor, the array control
 * and the object control all go through here, so a nested `array<object>`
 * gets the same controls as a top-level field.
 */
import { html, type TemplateResult } from 'lit';
import type { VccType } from '../../../protocol/customization.js';
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

/** Tag name of the control element for each VCC type kind. */
export const CONTROL_TAGS = {
  text: 'platform-text-control',
  textarea: 'platform-textarea-control',
  range: 'platform-range-control',
  boolean: 'platform-boolean-control',
  color: 'platform-color-control',
  select: 'platform-select-control',
  image: 'platform-image-control',
  sound: 'platform-sound-control',
  video: 'platform-video-control',
  file: 'platform-file-control',
  secret: 'platform-secret-control',
  'secret-image': 'platform-secret-image-control',
  coordinate: 'platform-coordinate-control',
  size: 'platform-size-control',
  array: 'platform-array-control',
  object: 'platform-object-control',
  unknown: 'platform-json-control',
} as const satisfies { readonly [Kind in VccType['kind']]: string };

/** The control element for `spec.type`: an unknown type gets the JSON fallback. */
export function renderControl(spec: ControlSpec): TemplateResult {
  // Lit needs the tag in the template's static strings, so each kind is spelled out.
  const p = spec;
  switch (spec.type.kind) {
    case 'text':
      return html`<platform-text-control data-kind="text" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-text-control>`;
    case 'textarea':
      return html`<platform-textarea-control data-kind="textarea" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-textarea-control>`;
    case 'range':
      return html`<platform-range-control data-kind="range" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-range-control>`;
    case 'boolean':
      return html`<platform-boolean-control data-kind="boolean" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-boolean-control>`;
    case 'color':
      return html`<platform-color-control data-kind="color" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-color-control>`;
    case 'select':
      return html`<platform-select-control data-kind="select" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-select-control>`;
    case 'image':
      return html`<platform-image-control data-kind="image" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-image-control>`;
    case 'sound':
      return html`<platform-sound-control data-kind="sound" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-sound-control>`;
    case 'video':
      return html`<platform-video-control data-kind="video" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-video-control>`;
    case 'file':
      return html`<platform-file-control data-kind="file" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-file-control>`;
    case 'secret':
      return html`<platform-secret-control data-kind="secret" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-secret-control>`;
    case 'secret-image':
      return html`<platform-secret-image-control data-kind="secret-image" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-secret-image-control>`;
    case 'coordinate':
      return html`<platform-coordinate-control data-kind="coordinate" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-coordinate-control>`;
    case 'size':
      return html`<platform-size-control data-kind="size" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-size-control>`;
    case 'array':
      return html`<platform-array-control data-kind="array" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-array-control>`;
    case 'object':
      return html`<platform-object-control data-kind="object" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-object-control>`;
    case 'unknown':
      return html`<platform-json-control data-kind="unknown" .path=${p.path} .vccType=${p.type} .value=${p.value} .label=${p.label} .description=${p.description ?? ''} .services=${p.services} .disabled=${p.disabled ?? false} .error=${p.error ?? ''}></platform-json-control>`;
  }
}
