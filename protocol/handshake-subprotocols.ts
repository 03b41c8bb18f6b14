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

/** Base64url without padding (RFC 4648 §5), as a subprotocol token allows; btoa is in browsers and Node alike. */
function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}
