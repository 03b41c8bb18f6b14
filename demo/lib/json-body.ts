/**
 * Bodies of the demo's JSON routes (publish a remix, a preview, a secret): read whole within a
 * cap (they are small by nature, unlike uploads, which lib/uploads.ts streams), checked for depth
 * before JSON.parse, and remix values checked at the door.
 */
import type { IncomingMessage } from 'node:http';
import { assertPlainData, DEFAULT_MAX_JSON_DEPTH, isPrototypeKey, jsonDepthWithin } from '../../protocol/data.js';
import { isPlatformError, PlatformError } from '../../protocol/errors.js';
// One body reader for the server, the demo and the workbench: its declared-length check refuses before a byte is read.
import { readBody } from '../../signaling/services/http.js';

export async function readJson(request: IncomingMessage, maxBytes: number): Promise<Record<string, unknown>> {
  const text = (await readBody(request, maxBytes)).toString('utf8');
  // Refused on the text, before JSON.parse: nothing that walks or re-serializes the value later meets one thousands of levels deep.
  if (!jsonDepthWithin(text, DEFAULT_MAX_JSON_DEPTH)) throw new PlatformError('INVALID_MESSAGE', `the body nests deeper than ${DEFAULT_MAX_JSON_DEPTH} levels`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    if (isPlatformError(error)) throw error;
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new PlatformError('INVALID_ARGUMENT', 'the body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/** Scopes of the platform's own: a remix does not set them. */
const RESERVED_SCOPES = new Set(['metadata', 'serviceMap']);

/**
 * What is wrong with published remix values, or undefined for `{ scope: { key: plain data } }`.
 * Scopes and keys named like a property of Object.prototype (`toString`, `hasOwnProperty`,
 * `__proto__`…) are refused here, at the door: the platform signs these values for the vault's
 * backend, and every reader after this one would have to get them right too.
 */
export function valuesProblem(value: unknown): { code: 'INVALID_ARGUMENT' | 'INVALID_PATH' | 'INVALID_VALUE'; message: string } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { code: 'INVALID_ARGUMENT', message: 'values must be { scope: { key: value } }' };
  for (const [scope, entries] of Object.entries(value)) {
    if (isPrototypeKey(scope)) return { code: 'INVALID_PATH', message: `the scope "${scope.slice(0, 64)}" is a name of Object.prototype` };
    if (RESERVED_SCOPES.has(scope)) return { code: 'INVALID_ARGUMENT', message: `the scope "${scope}" is the platform's own` };
    if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) return { code: 'INVALID_ARGUMENT', message: 'values must be { scope: { key: value } }' };
    for (const [key, item] of Object.entries(entries as Record<string, unknown>)) {
      if (isPrototypeKey(key)) return { code: 'INVALID_PATH', message: `the key "${scope.slice(0, 64)}.${key.slice(0, 64)}" is a name of Object.prototype` };
      try {
        assertPlainData(item);
      } catch (error) {
        return { code: 'INVALID_VALUE', message: `"${scope.slice(0, 64)}.${key.slice(0, 64)}": ${(error as Error).message}` };
      }
    }
  }
  return undefined;
}
