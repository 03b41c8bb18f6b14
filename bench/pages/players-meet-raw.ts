// The baselines of the players-meet benchmark: a member with no kit and no
// peerjs. Plain RTCPeerConnections, one ordered reliable data channel per
// pair (the lower id offers, trickle ICE, iceServers: [] as the kit's members
// use), signalled either over a BroadcastChannel between the pages of one
// browser (`floor`: no server at all, cheaper than any) or, with
// `?signal=ws://…`, over a WebSocket to the least signalling server there is
// (`plain`: bench/support/plain-signaling.ts). Each side sends hello on its channel once open;
// the member notes when each other member's first channel message came. The
// same page nesting, start() call and clock as players-meet-member.ts, and
// the same report shape, so one analysis reads both. Peer connections and
// channels are marked by the benchmark's init script (meet-marks.ts), as for the kit.
import type { MemberReport } from './players-meet-member.js';
import { whenTrue } from './when-true.js';

type Signal =
  | { type: 'here'; from: string }
  | { type: 'offer' | 'answer'; from: string; to: string; sdp: string }
  | { type: 'candidate'; from: string; to: string; candidate: RTCIceCandidateInit };

const meet = window.__meet!;
const wall = meet.wall;
const self = crypto.randomUUID();
const report: MemberReport = { clientId: self, connectCalled: 0, connected: null, allListed: null, allListedAny: null, seen: {}, marks: meet.marks, paths: {}, error: null };
const connections = new Map<string, RTCPeerConnection>();
let signals: { close(): void } | null = null;
const socketUrl = new URLSearchParams(location.search).get('signal');
/** An ablation (players-meet.bench.ts PLAYERS_MEET_PLAIN_AS_PEERJS): `pc` and/or `answer`, as peerjs's negotiator does. */
const asPeerJs = new URLSearchParams(location.search).get('as-peerjs') ?? '';
let expected = 0;

const mark = meet.mark;
const fail = (error: unknown): void => void (report.error ??= String(error));

function connection(peer: string, signal: (message: Signal) => void): RTCPeerConnection {
  let pc = connections.get(peer);
  if (pc) return pc;
  pc = new RTCPeerConnection({ iceServers: [] });
  connections.set(peer, pc);
  pc.onicecandidate = (event) => {
    if (event.candidate) signal({ type: 'candidate', from: self, to: peer, candidate: event.candidate.toJSON() });
  };
  const bind = (channel: RTCDataChannel): void => {
    channel.onopen = () => channel.send('hello');
    channel.onmessage = () => {
      const seen = (report.seen[peer] ??= {});
      seen.firstMesh ??= { at: wall(), name: 'hello' };
    };
  };
  if (self < peer) {
    bind(pc.createDataChannel('events', { ordered: true }));
    void pc
      .setLocalDescription()
      .then(() => {
        mark('peer → OFFER');
        signal({ type: 'offer', from: self, to: peer, sdp: pc.localDescription!.sdp });
      })
      .catch(fail);
  } else {
    pc.ondatachannel = (event) => bind(event.channel);
  }
  return pc;
}

function start(options: { shardName: string; members: number }): number {
  expected = options.members;
  let signal: (message: Signal) => void;
  const onSignal = (data: Signal): void => {
    if (data.from === self) return;
    if (data.type === 'here') {
      if (!(data.from in report.seen)) {
        (report.seen[data.from] ??= {}).presence = wall();
        signal({ type: 'here', from: self }); // so that a member who arrived later learns of this one
        if (Object.keys(report.seen).length >= expected - 1) report.allListedAny = report.allListed ??= wall();
        // The answering member of a pair makes its peer connection now, not when the offer comes (but with `as-peerjs=pc`).
        if (!asPeerJs.includes('pc') || self < data.from) connection(data.from, signal);
      }
      return;
    }
    if (data.to !== self) return;
    const pc = connection(data.from, signal);
    if (data.type === 'offer') {
      mark('peer ← OFFER');
      void pc
        .setRemoteDescription({ type: 'offer', sdp: data.sdp })
        .then(async () => (asPeerJs.includes('answer') ? pc.setLocalDescription(await pc.createAnswer()) : pc.setLocalDescription()))
        .then(() => {
          mark('peer → ANSWER');
          signal({ type: 'answer', from: self, to: data.from, sdp: pc.localDescription!.sdp });
        })
        .catch(fail);
    } else if (data.type === 'answer') {
      mark('peer ← ANSWER');
      void pc.setRemoteDescription({ type: 'answer', sdp: data.sdp }).catch(fail);
    } else if (data.type === 'candidate') {
      void pc.addIceCandidate(data.candidate).catch(fail);
    }
  };
  report.connectCalled = wall();
  if (socketUrl === null) {
    const channel = new BroadcastChannel(`players-meet-raw:${options.shardName}`);
    signals = channel;
    signal = (message) => channel.postMessage(message);
    channel.onmessage = ({ data }: MessageEvent<Signal>) => onSignal(data);
    signal({ type: 'here', from: self });
  } else {
    const socket = new WebSocket(`${socketUrl}/${encodeURIComponent(options.shardName)}`);
    // Under the kit's names, so that the breakdown compares the two sockets' opening.
    mark('control socket made');
    signals = socket;
    signal = (message) => socket.send(JSON.stringify(message));
    socket.onmessage = ({ data }: MessageEvent<string>) => onSignal(JSON.parse(data) as Signal);
    socket.onopen = () => {
      mark('control socket open');
      signal({ type: 'here', from: self });
    };
  }
  return report.connectCalled;
}

function done(members: number): boolean {
  const others = Object.values(report.seen);
  return report.error !== null || (others.length >= members - 1 && others.every((member) => member.firstMesh !== undefined));
}

const whenDone = (members: number, timeoutMs: number): Promise<boolean> => whenTrue(() => done(members), timeoutMs);

function stop(): void {
  signals?.close();
  for (const pc of connections.values()) pc.close();
}

window.__member = {
  start: (options) => start(options),
  stop,
  report: () => ({ ...report }),
  done,
  whenDone,
};
