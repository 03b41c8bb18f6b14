/**
 * Color strings the color control reads and writes: hex, rgb() and hsl(),
 * with or without alpha. Pure functions (unit tested in Node).
 */

/** A color as 0–255 channels and a 0–1 alpha. */
export interface Rgba {
  readonly r: number;
  readonly g: number;
  readonly b: number;
  readonly a: number;
}

/** The notations the control can write. */
export type ColorFormat = 'hex' | 'rgb' | 'hsl';

/** The notation `value` is written in. */
export function formatOf(value: string): ColorFormat {
  const lower = value.trim().toLowerCase();
  if (lower.startsWith('rgb')) return 'rgb';
  if (lower.startsWith('hsl')) return 'hsl';
  return 'hex';
}

/** Reads a hex, rgb(a) or hsl(a) color; undefined when it is none of them. */
export function parseColor(value: string): Rgba | undefined {
  const text = value.trim().toLowerCase();
  if (text.startsWith('#')) return parseHex(text.slice(1));
  const match = /^(rgba?|hsla?)\(([^)]*)\)$/.exec(text);
  if (!match?.[1] || match[2] === undefined) return undefined;
  const parts = match[2].split(/[\s,/]+/).filter(Boolean);
  if (parts.length !== 3 && parts.length !== 4) return undefined;
  const alpha = parts[3] === undefined ? 1 : fraction(parts[3]);
  if (alpha === undefined) return undefined;
  if (match[1].startsWith('rgb')) {
    const [r, g, b] = parts.slice(0, 3).map((part) => (part.endsWith('%') ? number(part.slice(0, -1), (n) => (n * 255) / 100) : number(part, (n) => n)));
    if (r === undefined || g === undefined || b === undefined) return undefined;
    return { r: channel(r), g: channel(g), b: channel(b), a: alpha };
  }
  const hue = number(parts[0]?.replace(/deg$/, '') ?? '', (n) => n);
  const saturation = number(parts[1]?.replace(/%$/, '') ?? '', (n) => n / 100);
  const lightness = number(parts[2]?.replace(/%$/, '') ?? '', (n) => n / 100);
  if (hue === undefined || saturation === undefined || lightness === undefined) return undefined;
  return { ...hslToRgb(hue, clamp01(saturation), clamp01(lightness)), a: alpha };
}

/** Writes `color` in `format`; alpha is written only when `withAlpha` and it is below 1. */
export function formatColor(color: Rgba, format: ColorFormat, withAlpha: boolean): string {
  const alpha = withAlpha && color.a < 1 ? Math.round(color.a * 100) / 100 : undefined;
  if (format === 'rgb') return alpha === undefined ? `rgb(${color.r}, ${color.g}, ${color.b})` : `rgba(${color.r}, ${color.g}, ${color.b}, ${alpha})`;
  if (format === 'hsl') {
    const { h, s, l } = rgbToHsl(color);
    return alpha === undefined ? `hsl(${h}, ${s}%, ${l}%)` : `hsla(${h}, ${s}%, ${l}%, ${alpha})`;
  }
  const hex = `#${hex2(color.r)}${hex2(color.g)}${hex2(color.b)}`;
  return alpha === undefined ? hex : hex + hex2(Math.round(alpha * 255));
}

/** `#rrggbb` of a color, for `<input type=color>` (which knows no alpha). */
export function toHex6(color: Rgba): string {
  return `#${hex2(color.r)}${hex2(color.g)}${hex2(color.b)}`;
}

function parseHex(digits: string): Rgba | undefined {
  if (!/^[0-9a-f]+$/.test(digits)) return undefined;
  const expand = digits.length === 3 || digits.length === 4 ? digits.replace(/./g, (digit) => digit + digit) : digits;
  if (expand.length !== 6 && expand.length !== 8) return undefined;
  const at = (index: number): number => parseInt(expand.slice(index, index + 2), 16);
  return { r: at(0), g: at(2), b: at(4), a: expand.length === 8 ? Math.round((at(6) / 255) * 100) / 100 : 1 };
}

function number(text: string, scale: (n: number) => number): number | undefined {
  if (!/^[-+]?(\d+\.?\d*|\.\d+)$/.test(text)) return undefined;
  return scale(Number(text));
}

function fraction(text: string): number | undefined {
  const value = text.endsWith('%') ? number(text.slice(0, -1), (n) => n / 100) : number(text, (n) => n);
  return value === undefined ? undefined : clamp01(value);
}

function channel(value: number): number {
  return Math.round(Math.min(255, Math.max(0, value)));
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

function hex2(value: number): string {
  return Math.round(value).toString(16).padStart(2, '0');
}

function hslToRgb(hue: number, s: number, l: number): { r: number; g: number; b: number } {
  const h = (((hue % 360) + 360) % 360) / 360;
  if (s === 0) return { r: channel(l * 255), g: channel(l * 255), b: channel(l * 255) };
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const component = (t0: number): number => {
    const t = t0 < 0 ? t0 + 1 : t0 > 1 ? t0 - 1 : t0;
    if (t < 1 / 6) return p + (q - p) * 6 * t;
    if (t < 1 / 2) return q;
    if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
    return p;
  };
  return { r: channel(component(h + 1 / 3) * 255), g: channel(component(h) * 255), b: channel(component(h - 1 / 3) * 255) };
}

function rgbToHsl({ r, g, b }: Rgba): { h: number; s: number; l: number } {
  const [rn, gn, bn] = [r / 255, g / 255, b / 255];
  const max = Math.max(rn, gn, bn);
  const min = Math.min(rn, gn, bn);
  const l = (max + min) / 2;
  let h = 0;
  let s = 0;
  if (max !== min) {
    const d = max - min;
    s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
    if (max === rn) h = (gn - bn) / d + (gn < bn ? 6 : 0);
    else if (max === gn) h = (bn - rn) / d + 2;
    else h = (rn - gn) / d + 4;
    h *= 60;
  }
  return { h: Math.round(h), s: Math.round(s * 100), l: Math.round(l * 100) };
}
