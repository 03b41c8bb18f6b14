/**
 * The guard of {@link IdentityTokenResult}, the answer of
 * `getIdentityToken` (host → guest) and of a host backend (→ host page).
 * Both sides check it at the door.
 */
import { FORBIDDEN_KEYS } from './data.js';
import type { IdentityTokenResult } from './link.js';

/** Longest user token accepted (the signaling wire takes up to 8192 characters). */
export const MAX_USER_TOKEN_LENGTH = 8192;

/** Guard: an {@link IdentityTokenResult} with string attributes only, or null. */
export function parseIdentityTokenResult(value: unknown): IdentityTokenResult | null {
  if (typeof value !== 'object' || value === null) return null;
  const { userToken, presumedRole, presumedAttributes } = value as Record<string, unknown>;
  if (typeof userToken !== 'string' || userToken.length === 0 || userToken.length > MAX_USER_TOKEN_LENGTH) return null;
  if (presumedRole !== 'admin' && presumedRole !== 'user' && presumedRole !== 'unknown') return null;
  if (typeof presumedAttributes !== 'object' || presumedAttributes === null || Array.isArray(presumedAttributes)) return null;
  const attributes: { [attribute: string]: string } = {};
  for (const [key, item] of Object.entries(presumedAttributes as Record<string, unknown>)) {
    if (FORBIDDEN_KEYS.has(key)) return null;
    if (item === undefined) continue;
    if (typeof item !== 'string') return null;
    attributes[key] = item;
  }
  return { userToken, presumedRole, presumedAttributes: attributes };
}
