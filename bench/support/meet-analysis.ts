/**
 * What the players-meet benchmark makes of one round's member reports: the
 * samples of its targets and the breakdown of the time into steps, all in ms
 * from the moment the last member called connect() (t0).
 */
import type { MemberReport } from '../pages/players-meet-member.js';
import { ANSWER_SETUP, PAIR_SETUP, type MeetMarks } from './meet-marks.js';

/** The samples of all rounds of one member count. */
export interface MeetSamples {
  /** Per member: every other member in its presence list. */
  presence: number[];
  /** Per pair (receiver, sender): the sender's hello, any path. */
  hello: number[];
  /** Per pair: the path that carried the hello. */
  helloPaths: { mesh: number; relay: number };
  /** Per pair: the sender's first event that came over the mesh. */
  firstMesh: number[];
  /** Per member: a mesh event from every other member. */
  allMesh: number[];
  /** Pairs that got no mesh event in the round's time, and members that failed. */
  missing: number;
  /** Spread of the connect() calls in a round (max − min). */
  spread: number[];
  /** Step name → per-member times (see STEPS). */
  steps: Record<string, number[]>;
  /** Per peer connection: its offer (made or received) to its data channel open, ms (meet-marks.ts's PAIR_SETUP). */
  pairSetup: number[];
  /** Per answering peer connection: its remote offer set to its local answer set, ms (meet-marks.ts's ANSWER_SETUP). */
  answerSetup: number[];
}

export function emptySamples(): MeetSamples {
  return { presence: [], hello: [], helloPaths: { mesh: 0, relay: 0 }, firstMesh: [], allMesh: [], missing: 0, spread: [], steps: {}, pairSetup: [], answerSetup: [] };
}

/** The steps of the breakdown, in the order they happen, with how each is read from a member's report. */
export const STEPS: readonly { readonly name: string; readonly at: (report: MemberReport) => number | undefined }[] = [
  { name: 'connect() called (own)', at: (r) => r.connectCalled },
  { name: 'control socket made', at: (r) => first(r.marks, 'control socket made') },
  { name: 'control socket open', at: (r) => first(r.marks, 'control socket open') },
  { name: 'joined answered', at: (r) => first(r.marks, 'control ← joined') },
  { name: 'connect() resolved', at: (r) => r.connected ?? undefined },
  { name: 'every other member listed (presence)', at: (r) => r.allListed ?? undefined },
  { name: 'every other member listed, here or away', at: (r) => r.allListedAny ?? undefined },
  { name: 'peerjs asked for (the mesh prepared)', at: (r) => first(r.marks, 'peerjs asked for') },
  { name: 'peerjs loaded', at: (r) => first(r.marks, 'peerjs loaded') },
  { name: 'peerjs socket made (peerjs loaded)', at: (r) => first(r.marks, 'peer socket made') },
  { name: 'peerjs socket open', at: (r) => first(r.marks, 'peer socket open') },
  { name: 'peerjs OPEN (peer id registered)', at: (r) => first(r.marks, 'peer ← OPEN') },
  // After the peerjs socket was made, or (issue 27: no peerjs socket, the mesh signals on the control socket) after
  // `joined`: then peerjs's own support probe counts too when peerjs finished loading after `joined`.
  {
    name: 'first peer connection made',
    at: (r) => after(r.marks, 'peer connection made', first(r.marks, 'peer socket made') ?? first(r.marks, 'control ← joined')),
  },
  // On the PeerJS socket, or (issue 27) in a `signal` frame of the control socket.
  {
    name: 'first offer sent or received',
    at: (r) => min(first(r.marks, 'peer → OFFER'), first(r.marks, 'peer ← OFFER'), first(r.marks, 'control → signal OFFER'), first(r.marks, 'control ← signal OFFER')),
  },
  { name: 'first ICE connected', at: (r) => first(r.marks, 'ICE connected') },
  { name: 'first data channel open', at: (r) => first(r.marks, 'data channel open') },
  { name: 'last ICE connected', at: (r) => last(r.marks, 'ICE connected') },
  { name: 'last data channel open', at: (r) => last(r.marks, 'data channel open') },
  { name: 'first hello heard (any path)', at: (r) => min(...Object.values(r.seen).map((s) => s.hello?.at)) },
  { name: 'a mesh event from every other member', at: (r) => allMeshAt(r) },
];

const first = (marks: MeetMarks, name: string): number | undefined => marks[name]?.[0];
const last = (marks: MeetMarks, name: string): number | undefined => marks[name]?.at(-1);
/** The first time of `name` at or after `from` (peerjs makes a peer connection of its own when it loads, to test support). */
const after = (marks: MeetMarks, name: string, from: number | undefined): number | undefined => (from === undefined ? undefined : marks[name]?.find((time) => time >= from));
function min(...values: (number | undefined)[]): number | undefined {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
}
function allMeshAt(report: MemberReport): number | undefined {
  const times = Object.values(report.seen).map((s) => s.firstMesh?.at);
  return times.some((time) => time === undefined) ? undefined : Math.max(...(times as number[]));
}

/** Adds one round (`members` reports) to `samples`. */
export function addRound(samples: MeetSamples, reports: readonly MemberReport[], members: number): void {
  const calls = reports.map((report) => report.connectCalled);
  const t0 = Math.max(...calls);
  samples.spread.push(t0 - Math.min(...calls));
  for (const report of reports) {
    if (report.error !== null || report.allListed === null) {
      samples.missing += members - 1;
      continue;
    }
    samples.presence.push(report.allListed - t0);
    samples.pairSetup.push(...(report.marks[PAIR_SETUP] ?? []));
    samples.answerSetup.push(...(report.marks[ANSWER_SETUP] ?? []));
    const others = Object.values(report.seen);
    samples.missing += Math.max(0, members - 1 - others.length);
    for (const seen of others) {
      if (seen.hello) {
        samples.hello.push(seen.hello.at - t0);
        samples.helloPaths[seen.hello.path]++;
      }
      if (seen.firstMesh) samples.firstMesh.push(seen.firstMesh.at - t0);
      else samples.missing++;
    }
    const allMesh = allMeshAt(report);
    if (allMesh !== undefined && others.length === members - 1) samples.allMesh.push(allMesh - t0);
    for (const step of STEPS) {
      const at = step.at(report);
      if (at !== undefined) (samples.steps[step.name] ??= []).push(at - t0);
    }
  }
}
