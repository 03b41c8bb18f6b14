/**
 * The join in the WebSocket handshake (v2): the subprotocols that carry it,
 * their encoding ({@link encodeHandshakeJoin}, handshake-subprotocols.ts) and
 * their parse on the server ({@link parseHandshakeJoin}). The handshake itself
 * is told in signaling.ts.
 */
import { parseClientMessage, type JoinMessage } from './client-frames.js';
import { parseJsonObject } from './frame-guards.js';
import { JOIN_SUBPROTOCOL_PREFIX, MAX_HANDSHAKE_JOIN_CHARS } from './handshake-subprotocols.js';

export { CONTROL_SUBPROTOCOL, encodeHandshakeJoin, JOIN_SUBPROTOCOL_PREFIX, MAX_HANDSHAKE_JOIN_CHARS } from './handshake-subprotocols.js';

/**
 * The join a client offered in its handshake (`Sec-WebSocket-Protocol`):
 * `undefined` when it offered none, `null` when the offer is malformed (not
 * base64url JSON, not a valid `join`). Never throws. `decodeBase64Url` turns
 * base64url into text (the server passes Node's Buffer: `atob` costs more
 * than the rest of a join).
 */
export function parseHandshakeJoin(header: unknown, decodeBase64Url: (encoded: string) => string): JoinMessage | null | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || header.length > MAX_HANDSHAKE_JOIN_CHARS + 256) return null;
  const at = header.indexOf(JOIN_SUBPROTOCOL_PREFIX);
  if (at < 0) return undefined;
  const end = header.indexOf(',', at);
  const offered = header.slice(at + JOIN_SUBPROTOCOL_PREFIX.length, end < 0 ? header.length : end).trim();
  if (!BASE64URL_PATTERN.test(offered)) return null;
  let text: string;
  try {
    text = decodeBase64Url(offered);
  } catch {
    // Not base64url: the caller answers INVALID_MESSAGE, like a malformed frame.
    return null;
  }
  const message = parseClientMessage(parseJsonObject(text));
  return message?.type === 'join' ? message : null;
}

const BASE64URL_PATTERN = /^[A-Za-z0-9_-]+$/;
