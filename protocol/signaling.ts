/**
 * The client ↔ signaling server wire (Dispatch), and the member ↔ member
 * frame sent over WebRTC data channels. Both the server (signaling/) and the
 * clients (guest/dispatch/, signaling/backend-dispatch.ts) import this file;
 * nothing else crosses that boundary. It holds no code of its own: it tells
 * the handshake (below) and gathers the wire's parts, one concept a file:
 * - signaling-constants.ts: version, paths, close codes, limits, names;
 * - signaling-members.ts: payloads, members and shards as frames carry them;
 * - client-frames.ts / server-frames.ts: the control socket's frames each
 *   way, with their guards (frame-guards.ts: the field checks they share);
 * - peer-frames.ts: the data channel's event and acknowledgement frames;
 * - mesh-signal-frames.ts: the mesh's signalling (offers, answers, ICE
 *   candidates) carried on the control socket (`signal`);
 * - event-frames.ts: an event's frame texts, its payload serialized once;
 * - handshake-join.ts: the join carried in the WebSocket handshake (v2);
 * - clock.ts: the clock both sides stamp times with.
 *
 * Every frame is one JSON text WebSocket message whose `type` is a string
 * literal (readable in devtools). Guards take `unknown` (or the raw text) and
 * return a typed value or `null`; the server answers `null` with an
 * `INVALID_MESSAGE` error and never throws.
 *
 * The handshake, written down:
 * 1. The client opens `ws(s)://server/dispatch` (no secret in the URL) and
 *    joins, in one of two ways:
 *    - in the WebSocket handshake (v2, one round trip): it offers the
 *      subprotocols {@link CONTROL_SUBPROTOCOL} and `platform-kit.join.<the
 *      join message, JSON, base64url>` ({@link encodeHandshakeJoin}); the
 *      server selects the first and answers `joined` right behind its 101,
 *      in the same write, as PeerServer answers `OPEN`. Why a subprotocol: it
 *      is the one header a browser lets a page set, and a header, unlike the
 *      URL, is not written to access logs (Kubernetes carries bearer tokens
 *      the same way). A join too large for a header, or one carrying a
 *      project token (a long-lived secret), goes the other way;
 *    - as the first frame, once the socket is open (v1, and v2 when the join
 *      did not fit in the handshake). A backend client puts its project
 *      token in that frame; a browser client names only its project.
 * 2. The server places the client in a shard atomically (named, or one with
 *    room, or a new one), answers `joined` with the client id, the shard, the
 *    whole presence list, the limits and a resume token, then tells the other
 *    members with a `presence` frame. Presence is coalesced: the changes of
 *    one shard within one turn of the server's event loop leave as one frame
 *    (`op: 'batch'`, v2 clients; a v1 client gets them one frame each), and
 *    always before any later event of that shard, so a member is listed
 *    before its first event arrives.
 * 3. The client syncs its clock with `ping`/`pong` (NTP style: the sample with
 *    the smallest round trip wins) and keeps pinging as a heartbeat.
 * 4. A client whose socket dropped sends `join` again with `resume`; within
 *    the grace period it keeps its client id and shard, and the server tells
 *    it the last event sequence number it received so nothing is sent twice.
 * 5. The mesh: a browser client that asked (`join.meshSignaling: 'control'`,
 *    confirmed by `joined.peer.control`) sends and hears its pairs' offers,
 *    answers and ICE candidates as `signal` frames on this socket
 *    (mesh-signal-frames.ts); any other opens a PeerJS socket
 *    (`/peerjs/peerjs`, signaling/peer-signaling.ts) with the peer id and
 *    token of `joined`. The server routes between both.
 */
export * from './signaling-constants.js';
export * from './signaling-members.js';
export * from './client-frames.js';
export * from './server-frames.js';
export * from './peer-frames.js';
export * from './mesh-signal-frames.js';
export * from './event-frames.js';
export * from './handshake-join.js';
export * from './clock.js';
export { parseJsonObject } from './frame-guards.js';
export * from './state-frames.js';
