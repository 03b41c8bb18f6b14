/**
 * peerjs's offers and answers, one step shorter (issue 27, bullet 4).
 *
 * peerjs makes an offer as `createOffer()` then `setLocalDescription(offer)`,
 * and an answer as `createAnswer()` then `setLocalDescription(answer)`. Each
 * is an operation on the peer connection's chain and a hop back to the page's
 * main thread, and an answer's waits behind the ICE candidates that came with
 * its offer. `setLocalDescription()` with no argument makes and sets the
 * description in one operation (the "perfect negotiation" form every current
 * browser has). Measured with players-meet (8 members, 2 cores, 16 renderers):
 * a plain-WebRTC answerer that took the two steps answered 135 ms after the
 * offer's remote description was set, against 89 ms in one step; peerjs's
 * answerer took 175.
 *
 * How, without changing peerjs for anyone else on the page: the data
 * connections of this kit's peers are a subclass of peerjs's own `raw` class
 * (registered as that peer's `raw` serializer), whose `_negotiator` accessor
 * gives each new negotiator the two one-step methods before peerjs calls it.
 * Everything else (the data channel, the candidates, the events) is
 * peerjs's. These are peerjs internals (1.5.x, as control-signal.ts's): when
 * a release renames them, `shortenNegotiation` leaves the peer as it is, and
 * the mesh works as before, a step slower.
 */
import type { Peer } from 'peerjs';

/** What peerjs's negotiator reads of its data connection. */
interface ConnectionInternals {
  readonly peer: string;
  readonly type: string;
  readonly connectionId: string;
  readonly metadata: unknown;
  readonly label: string;
  readonly reliable: boolean;
  readonly serialization: string;
  readonly peerConnection: RTCPeerConnection | null;
  readonly provider: { readonly socket: { send(message: unknown): void }; emitError(type: string, error: unknown): void };
}

/** peerjs's negotiator, as far as it is replaced here. */
interface NegotiatorInternals {
  readonly connection: ConnectionInternals;
  _makeOffer: () => Promise<void>;
  _makeAnswer: () => Promise<void>;
}

type ConnectionClass = new (...args: never[]) => object;

/** peerjs's error type for failures of the WebRTC API (PeerErrorType.WebRTC). */
const WEBRTC_ERROR = 'webrtc';

/** The negotiator of each connection (kept off the connection: its accessor runs before the subclass's own fields exist). */
const negotiators = new WeakMap<object, NegotiatorInternals | null>();
/** One subclass per peerjs `raw` class (peerjs may be loaded as a module and as a bundle). */
const shortened = new WeakMap<ConnectionClass, ConnectionClass>();

/** Sets the local description in one step and returns it as the wire carries it. */
async function describeLocally(connection: ConnectionInternals): Promise<RTCSessionDescriptionInit> {
  const pc = connection.peerConnection;
  if (!pc) throw new Error('the peer connection is gone');
  await pc.setLocalDescription();
  const description = pc.localDescription;
  if (!description) throw new Error('no local description after setLocalDescription()');
  return description.toJSON();
}

/**
 * A negotiator's step that sets the local description in one go and sends it as peerjs's own
 * `type` message, `payload` field for field; a failure is peerjs's WebRTC error, as its own step's.
 */
function describeAndSend(
  negotiator: NegotiatorInternals,
  type: 'OFFER' | 'ANSWER',
  payload: (connection: ConnectionInternals, sdp: RTCSessionDescriptionInit) => object,
): () => Promise<void> {
  return async () => {
    const connection = negotiator.connection;
    try {
      const sdp = await describeLocally(connection);
      connection.provider.socket.send({ type, payload: payload(connection, sdp), dst: connection.peer });
    } catch (error) {
      connection.provider.emitError(WEBRTC_ERROR, error);
    }
  };
}

/** Gives one negotiator the one-step offer and answer. */
function shorten(negotiator: NegotiatorInternals): void {
  negotiator._makeOffer = describeAndSend(negotiator, 'OFFER', ({ type, connectionId, metadata, label, reliable, serialization }, sdp) => ({
    sdp,
    type,
    connectionId,
    metadata,
    label,
    reliable,
    serialization,
  }));
  negotiator._makeAnswer = describeAndSend(negotiator, 'ANSWER', ({ type, connectionId }, sdp) => ({ sdp, type, connectionId }));
}

/** True when `value` looks like the negotiator this file knows (both methods there to replace). */
function isNegotiator(value: unknown): value is NegotiatorInternals {
  const candidate = value as Partial<NegotiatorInternals> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate._makeOffer === 'function' && typeof candidate._makeAnswer === 'function';
}

function shortenedClass(Raw: ConnectionClass): ConnectionClass {
  let Short = shortened.get(Raw);
  if (!Short) {
    Short = class extends Raw {
      // peerjs's constructor assigns `this._negotiator = new Negotiator(this)` and calls it on the
      // next line: this accessor is on the prototype, so that assignment comes here first.
      get _negotiator(): NegotiatorInternals | null {
        return negotiators.get(this) ?? null;
      }
      set _negotiator(negotiator: NegotiatorInternals | null) {
        if (isNegotiator(negotiator)) shorten(negotiator);
        negotiators.set(this, negotiator);
      }
    };
    shortened.set(Raw, Short);
  }
  return Short;
}

/**
 * Makes `peer`'s raw data connections (the mesh's) offer and answer in one step; called once per
 * peer, as it is made. Returns false (and changes nothing) when this peerjs has not the internals
 * it needs, or has a `_negotiator` accessor of its own on that class.
 */
export function shortenNegotiation(peer: Peer): boolean {
  const serializers = (peer as unknown as { _serializers?: Record<string, unknown> })._serializers;
  const Raw = serializers?.['raw'];
  if (typeof Raw !== 'function' || Object.getOwnPropertyDescriptor(Raw.prototype, '_negotiator')) return false;
  serializers!['raw'] = shortenedClass(Raw as ConnectionClass);
  return true;
}
