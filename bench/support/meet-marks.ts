/**
 * What the players-meet benchmark records in a page, from outside the kit: an
 * init script (a string, run in every frame before its own scripts) that
 * wraps the browser's WebSocket, RTCPeerConnection and RTCDataChannel and
 * notes, in wall-clock ms (performance.timeOrigin + now, comparable across
 * renderer processes), when each step of meeting happened:
 *
 * - control socket made / open, the first frame of each type on it
 *   (`joined`, `pong`, `presence`, `event`) and each frame type it sends;
 * - peerjs socket made / open, its frames (`OPEN`, `OFFER`, `ANSWER`,
 *   `CANDIDATE`) both ways; the same PeerJS messages in the control socket's
 *   `signal` frames (issue 27: the mesh's signalling on the control socket),
 *   marked `control → signal OFFER` and so on;
 * - each RTCPeerConnection made, its ICE connected, each data channel open;
 * - per peer connection, the time from its offer to its channel open (PAIR_SETUP: a duration),
 *   and on the answering side from the offer set to the answer set (ANSWER_SETUP);
 * - each local ICE candidate, each remote one added, each remote offer set.
 *
 * The kit is not changed for it: what it does is seen at the browser's API.
 * A mark keeps every time it happened (a page of eight members opens seven
 * peer connections), so the breakdown can give the first and the last.
 *
 * Which path carried an event: `window.__meet.onChannel` is above 0 while a
 * data channel's message handler runs. Listeners of `Platform.dispatch` are
 * called synchronously from it (event-receiver.ts), so a listener that reads
 * it knows whether the frame came by the mesh (the data channel) or by the
 * relay (the control socket).
 */

/** The marks of one frame: name → wall-clock ms of each time it happened. */
export type MeetMarks = Record<string, number[]>;

declare global {
  interface Window {
    __meet?: { marks: MeetMarks; onChannel: number; mark(name: string): void; wall(): number };
  }
}

/** Not a time but a duration, one per peer connection: its offer (sent or received) to its data channel open, ms. */
export const PAIR_SETUP = 'Δ pair: offer → data channel open';
/** A duration per answering peer connection: its remote offer set (called) to its local answer set, ms. */
export const ANSWER_SETUP = 'Δ answerer: remote offer set → local answer set';

export const MEET_MARKS_SCRIPT = `(() => {
  const PAIR_SETUP = ${JSON.stringify(PAIR_SETUP)};
  const ANSWER_SETUP = ${JSON.stringify(ANSWER_SETUP)};
  if (window.__meet) return;
  const wall = () => performance.timeOrigin + performance.now();
  const marks = {};
  const mark = (name) => { (marks[name] ??= []).push(wall()); };
  const state = { marks, onChannel: 0, mark, wall };
  Object.defineProperty(window, '__meet', { value: state });
  const typeOf = (data) => {
    if (typeof data !== 'string') return undefined;
    const type = /"type":"([A-Za-z_-]+)"/.exec(data)?.[1];
    // A PeerJS message on the control socket: named by the message it carries.
    return type === 'signal' ? 'signal ' + (/"m":{"type":"([A-Z]+)"/.exec(data)?.[1] ?? '?') : type;
  };
  const NativeWebSocket = window.WebSocket;
  class MeetWebSocket extends NativeWebSocket {
    constructor(url, protocols) {
      super(url, protocols);
      const text = String(url);
      const kind = text.includes('/peerjs') ? 'peer' : text.includes('/dispatch') ? 'control' : null;
      this.__kind = kind;
      if (kind === null) return;
      mark(kind + ' socket made');
      this.addEventListener('open', () => mark(kind + ' socket open'));
      this.addEventListener('message', (event) => { const type = typeOf(event.data); if (type) mark(kind + ' ← ' + type); });
    }
    send(data) {
      if (this.__kind) { const type = typeOf(data); if (type) mark(this.__kind + ' → ' + type); }
      return super.send(data);
    }
  }
  window.WebSocket = MeetWebSocket;
  // A pair's own setup time, whatever else the page waits for: its offer (made or received) to its channel open.
  const opened = (pc) => {
    mark('data channel open');
    if (pc.__offerAt !== undefined) (marks[PAIR_SETUP] ??= []).push(wall() - pc.__offerAt);
  };
  const watchChannel = (channel, pc) => {
    if (channel.readyState === 'open') opened(pc);
    else channel.addEventListener('open', () => opened(pc), { once: true });
  };
  const NativePeerConnection = window.RTCPeerConnection;
  if (NativePeerConnection) {
    class MeetPeerConnection extends NativePeerConnection {
      constructor(...args) {
        super(...args);
        mark('peer connection made');
        let connected = false;
        this.addEventListener('signalingstatechange', () => {
          if (this.__offerAt === undefined && (this.signalingState === 'have-local-offer' || this.signalingState === 'have-remote-offer')) this.__offerAt = wall();
        });
        this.addEventListener('iceconnectionstatechange', () => {
          if (!connected && (this.iceConnectionState === 'connected' || this.iceConnectionState === 'completed')) { connected = true; mark('ICE connected'); }
        });
        this.addEventListener('datachannel', (event) => watchChannel(event.channel, this));
        this.addEventListener('icecandidate', (event) => { if (event.candidate) mark('local candidate'); });
        this.addEventListener('signalingstatechange', () => {
          if (this.signalingState === 'stable' && this.__remoteOfferAt !== undefined) (marks[ANSWER_SETUP] ??= []).push(wall() - this.__remoteOfferAt);
        });
      }
      setRemoteDescription(description, ...rest) {
        if (description && description.type === 'offer') { this.__remoteOfferAt = wall(); mark('remote offer set (called)'); }
        return super.setRemoteDescription(description, ...rest);
      }
      addIceCandidate(...args) {
        mark('remote candidate added');
        return super.addIceCandidate(...args);
      }
      createDataChannel(...args) {
        const channel = super.createDataChannel(...args);
        watchChannel(channel, this);
        return channel;
      }
    }
    window.RTCPeerConnection = MeetPeerConnection;
    const handler = Object.getOwnPropertyDescriptor(RTCDataChannel.prototype, 'onmessage');
    Object.defineProperty(RTCDataChannel.prototype, 'onmessage', {
      configurable: true,
      enumerable: true,
      get() { return handler.get.call(this); },
      set(callback) {
        const wrapped = typeof callback === 'function'
          ? function (event) { state.onChannel++; try { return callback.call(this, event); } finally { state.onChannel--; } }
          : callback;
        handler.set.call(this, wrapped);
      },
    });
  }
})();`;

/** The first and last time of `name`, or undefined. */
export function firstOf(marks: MeetMarks, name: string): number | undefined {
  return marks[name]?.[0];
}
export function lastOf(marks: MeetMarks, name: string): number | undefined {
  const times = marks[name];
  return times === undefined ? undefined : times[times.length - 1];
}
