/**
 * Small checks and readers the VCC kinds share (vcc-kinds.ts): colors, media
 * URLs, the keystore's key paths and the readers of `typeOptions`. Apart from
 * the table so that the table stays one entry per kind.
 */
import type { PlainData } from './data.js';
import { PlatformError } from './errors.js';

/** The `typeOptions` of a VCC definition. */
export type TypeOptions = { readonly [option: string]: PlainData };

/** Largest upload of a media VCC when its typeOptions do not say: 25 MB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/** Prefix of the key path a secret VCC stores instead of its value. */
export const KEYSTORE_SCHEME = 'platform-keystore://';

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const FUNCTION_COLOR = /^(rgb|rgba|hsl|hsla)\(\s*[-+0-9.%\s,/deg]+\)$/i;

/** True when `value` is a color string this kit understands: hex, rgb(a) or hsl(a). */
export function isColorString(value: string, allowAlpha: boolean): boolean {
  if (HEX_COLOR.test(value)) return allowAlpha || value.length === 4 || value.length === 7;
  const match = FUNCTION_COLOR.exec(value);
  if (!match) return false;
  const parts = value
    .slice(value.indexOf('(') + 1, -1)
    .split(/[\s,/]+/)
    .filter(Boolean);
  if (parts.length === 4) return allowAlpha;
  return parts.length === 3;
}

/** Media values are URLs a template will load: http(s), or a path on the template's own origin. */
export function isSafeMediaUrl(value: string): boolean {
  if (value.startsWith('/') || value.startsWith('./')) return !value.startsWith('//');
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** `typeOptions[name]` as a finite number; undefined when absent, `INVALID_CONFIG` when it is something else. */
export function numberOption(options: TypeOptions, name: string): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new PlatformError('INVALID_CONFIG', `typeOptions.${name} must be a number`);
  return value;
}

/** `typeOptions[name]` when it is a string. */
export function stringOption(options: TypeOptions, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

/** `typeOptions[name]` when it is an object (not a list). */
export function objectOption(options: TypeOptions, name: string): { [option: string]: PlainData } | undefined {
  const value = options[name];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

/** "a text", "an image": the article a type name takes in a message. */
export function withArticle(name: string): string {
  return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`;
}
