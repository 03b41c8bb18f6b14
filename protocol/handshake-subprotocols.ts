/**
 * The subprotocols that carry a join in the WebSocket handshake (v2) and
 * their encoding: what a client needs, apart from the server's parse
 * (handshake-join.ts) and its guards, because the guest's first load holds it
 * (Platform.dispatch's early socket, guest/dispatch/early-socket.ts): this
 * module imports nothing.
 */
import type { JoinMessage } from './client-frames.js';

/** The subprotocol a v2 server selects when a client joins in the handshake. */
export const CONTROL_SUBPROTOCOL = 'platform-kit.v2';
/** Prefix of the subprotocol that carries the join message (base64url of its JSON). */
export const JOIN_SUBPROTOCOL_PREFIX = 'platform-kit.join.';
/**
 * Longest join subprotocol, in characters. Node servers refuse request
 * headers over 16 KiB in all; a join larger than this (a large `userInfo`)
 * is sent as the first frame instead.
 */
export const MAX_HANDSHAKE_JOIN_CHARS = 6 * 1024;

/**
 * The subprotocols that carry `join` in the WebSocket handshake
 * (`[CONTROL_SUBPROTOCOL, 'platform-kit.join.<base64url JSON>']`), or `null`
 * when this join must go as the first frame instead: it carries a project
 * token (a long-lived secret stays out of every header), or it is longer
 * than {@link MAX_HANDSHAKE_JOIN_CHARS}.
 */
export function encodeHandshakeJoin(join: JoinMessage): readonly string[] | null {
  if (join.projectToken !== undefined) return null;
  const bytes = new TextEncoder().encode(JSON.stringify(join));
  if (bytes.length > (MAX_HANDSHAKE_JOIN_CHARS / 4) * 3) return null;
  return [CONTROL_SUBPROTOCOL, JOIN_SUBPROTOCOL_PREFIX + base64Url(bytes)];
}

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * base64url without padding. Written out because btoa needs a binary string
 * first and three regex passes after, and Node's btoa is a slow JavaScript
 * loop: this is 2.7× faster there (1.2 against 3.4 µs for a join) and
 * needs no Buffer, so it is the same code in the browser.
 */
function base64Url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += BASE64URL_ALPHABET[n >>> 18]! + BASE64URL_ALPHABET[(n >>> 12) & 63]! + BASE64URL_ALPHABET[(n >>> 6) & 63]! + BASE64URL_ALPHABET[n & 63]!;
  }
  if (i < bytes.length) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8);
    out += BASE64URL_ALPHABET[n >>> 18]! + BASE64URL_ALPHABET[(n >>> 12) & 63]!;
    if (i + 1 < bytes.length) out += BASE64URL_ALPHABET[(n >>> 6) & 63]!;
  }
  return out;
}
