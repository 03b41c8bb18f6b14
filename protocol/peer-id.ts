/**
 * A peer id the client proposes in its `join` (issue 27): the client makes a
 * secret token and derives its PeerJS peer id from it, so that its PeerJS
 * socket can open beside the control socket instead of after `joined`.
 *
 * Why derived, not chosen: the server parks a PeerJS socket that comes before
 * its join (signaling/peer-signaling.ts) only when the socket's id is the
 * digest of its token. Only the holder of the token can then open a socket
 * for that id: an attacker who learns a peer id (every member of a shard sees
 * the others' in presence) cannot squat on it, and one who makes up ids gets
 * sockets that no join will ever bind, dropped at the join timeout.
 *
 * The wire: `join.peerToken` is {@link PEER_TOKEN_HEX_CHARS} lowercase hex
 * characters (128 random bits); the peer id is the first
 * {@link PEER_ID_HEX_CHARS} hex characters of SHA-256(`PEER_ID_DIGEST_PREFIX`
 * + token). An optional join field: a server that does not know it ignores it
 * and issues an id of its own in `joined` (so `v` stays 2), and the client
 * then uses that one.
 */

/** Length of a proposed peer token: 128 random bits in lowercase hex. */
export const PEER_TOKEN_HEX_CHARS = 32;
/** Length of a derived peer id (128 bits of the digest; the server's own ids are 24 hex characters). */
export const PEER_ID_HEX_CHARS = 32;
/** Put before the token in the digest, so that the id is this kit's and no other hash of the same bytes. */
export const PEER_ID_DIGEST_PREFIX = 'platform-kit peer id\u0000';

const TOKEN_PATTERN = /^[0-9a-f]{32}$/;

/** True for a well-formed proposed peer token. */
export function isProposedPeerToken(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_PATTERN.test(value);
}

/** A new proposed peer token (the browser's and Node's `crypto.getRandomValues`). */
export function newPeerToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(PEER_TOKEN_HEX_CHARS / 2));
  return hex(bytes);
}

/** The peer id of a digest of {@link PEER_ID_DIGEST_PREFIX} + token (SHA-256, raw bytes). */
export function peerIdOfDigest(digest: Uint8Array): string {
  return hex(digest.subarray(0, PEER_ID_HEX_CHARS / 2));
}

/**
 * The peer id of a proposed token, with WebCrypto (async; the browser's
 * `crypto.subtle`, which exists only in a secure context). The server has its
 * own synchronous digest (signaling/peer-signaling.ts); a test checks both agree.
 */
export async function derivePeerId(token: string, subtle: SubtleCrypto): Promise<string> {
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(PEER_ID_DIGEST_PREFIX + token));
  return peerIdOfDigest(new Uint8Array(digest));
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}
