/**
 * The field checks every signaling guard (client, server and peer frames) is
 * built from, and the parse of a text frame into a JSON object.
 */
import type { EventPayload } from './signaling-members.js';

/** A parsed JSON object whose fields are not checked yet. */
export type Obj = Record<string, unknown>;

export const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
export const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
export const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
export const isId = (value: unknown, max = 128): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;
export const isPayload = (value: unknown): value is EventPayload => isObject(value);

/** Parses a text frame; `null` for anything that is not a JSON object. Never throws. */
export function parseJsonObject(text: unknown): Obj | null {
  if (typeof text !== 'string') return null;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    // Not JSON (or nested too deep for the parser): the caller answers INVALID_MESSAGE.
    return null;
  }
}
