// One-way event latency between two members in one page (one clock, so no
// sync error in the figures), sequential sends, scenarios interleaved in
// rounds (shuffled per round): ours over the mesh and over the relay, a raw RTCDataChannel pair,
// a raw WebSocket forwarder, Socket.IO room broadcast, and (a diagnostic) plain WebSockets
// through our server.
import type { io as ioType } from 'socket.io-client';
import { createDispatch } from '../../guest/dispatch/index.js';
import { loadPeerJsBundle } from './peerjs-bundle.js';
import { encodeHandshakeJoin, emitFrame, eventFrameBody, SIGNALING_VERSION } from '../../protocol/signaling.js';
import { roundOrder } from './order.js';

declare global {
  interface Window {
    __dispatchResults?: { scenarios: { id: string; samples: number[] }[]; error?: string };
  }
}

const params = new URLSearchParams(location.search);
const signaling = params.get('signaling')!;
const rawWs = params.get('rawWs')!;
const sio = params.get('sio')!;
const samples = Number(params.get('samples') ?? 2000);
const warmup = Number(params.get('warmup') ?? 300);
const rounds = Number(params.get('rounds') ?? 5);
const payload = { text: 'x'.repeat(48) };
// The baselines carry what ours carries: the same payload (with its `i`) and a send time of the
// same length as ours (ms since the epoch with a fraction), so frames are as long and parsing
// them is as much work. Read once: the baselines do not need a clock, only the bytes.
const baselineTs = performance.timeOrigin + performance.now();

type Scenario = { id: string; send: (i: number) => void; arrive: { resolve: (() => void) | null } };

const loadPeerJs = loadPeerJsBundle;

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const end = performance.now() + 20_000;
  while (!condition()) {
    if (performance.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function dispatchPair(id: string, mesh: boolean): Promise<Scenario> {
  const shardName = `${id}-${Math.random().toString(36).slice(2, 8)}`;
  const a = createDispatch({ url: signaling, projectId: 'bench', mesh, loadPeerJs });
  const b = createDispatch({ url: signaling, projectId: 'bench', mesh, loadPeerJs });
  await a.connect({ shardName });
  const infoB = await b.connect({ shardName });
  const scenario: Scenario = { id, arrive: { resolve: null }, send: (i) => void a.emitEvent('m', { ...payload, i }) };
  b.on('m', () => scenario.arrive.resolve?.());
  if (mesh) await waitFor(() => a.session?.paths()[infoB.clientId] === 'peer' && b.session?.paths()[a.connectionInfo!.clientId] === 'peer', 'mesh open');
  return scenario;
}

async function rawDataChannel(): Promise<Scenario> {
  const left = new RTCPeerConnection();
  const right = new RTCPeerConnection();
  left.onicecandidate = (event) => event.candidate && void right.addIceCandidate(event.candidate);
  right.onicecandidate = (event) => event.candidate && void left.addIceCandidate(event.candidate);
  const channel = left.createDataChannel('raw', { ordered: true });
  // The browser's own send, as ours calls it: peerjs (loaded by the mesh scenario) installs
  // webrtc-adapter, which wraps `send` on every channel made after it in a size check.
  const send = RTCDataChannel.prototype.send as (this: RTCDataChannel, data: string) => void;
  const scenario: Scenario = {
    id: 'raw-datachannel',
    arrive: { resolve: null },
    send: (i) => send.call(channel, JSON.stringify({ type: 'event', prev: i, seq: i + 1, name: 'm', payload: { ...payload, i }, ts: baselineTs })),
  };
  right.ondatachannel = (event) => {
    event.channel.onmessage = (message) => {
      JSON.parse(message.data as string); // the receiver parses, as ours does
      scenario.arrive.resolve?.();
    };
  };
  await left.setLocalDescription(await left.createOffer());
  await right.setRemoteDescription(left.localDescription!);
  await right.setLocalDescription(await right.createAnswer());
  await left.setRemoteDescription(right.localDescription!);
  await waitFor(() => channel.readyState === 'open', 'raw channel open');
  return scenario;
}

async function rawWebSocket(): Promise<Scenario> {
  const a = new WebSocket(rawWs);
  const b = new WebSocket(rawWs);
  const scenario: Scenario = {
    id: 'raw-ws-forward',
    arrive: { resolve: null },
    send: (i) => a.send(JSON.stringify({ type: 'emit', seq: i + 1, name: 'm', payload: { ...payload, i }, ts: baselineTs })),
  };
  b.onmessage = (message) => {
    JSON.parse(message.data as string);
    scenario.arrive.resolve?.();
  };
  await waitFor(() => a.readyState === 1 && b.readyState === 1, 'raw ws open');
  return scenario;
}

/**
 * Diagnostic: our server with plain WebSockets for clients. The sender writes the frames our
 * client writes (a join in the handshake, then emit frames); the receiver parses what the
 * server relays, as the raw receivers do. No client library on either side.
 */
async function rawThroughOurs(): Promise<Scenario> {
  const shardName = `rawours-${Math.random().toString(36).slice(2, 8)}`;
  const url = signaling.replace(/^http/, 'ws') + '/dispatch';
  const open = (): Promise<WebSocket> =>
    new Promise((resolve) => {
      const ws = new WebSocket(url, [
        ...encodeHandshakeJoin({ type: 'join', v: SIGNALING_VERSION, id: 1, projectId: 'bench', kind: 'browser', shardName, maxConnectionsPerShard: 10, userInfo: {} })!,
      ]);
      ws.onmessage = (message) => {
        if (String(message.data).startsWith('{"type":"joined"')) resolve(ws);
      };
    });
  const a = await open();
  const b = await open();
  let seq = 0;
  const scenario: Scenario = {
    id: 'raw-via-ours',
    arrive: { resolve: null },
    send: (i) => a.send(emitFrame(eventFrameBody(++seq, 'm', JSON.stringify({ ...payload, i }), baselineTs), null)),
  };
  b.onmessage = (message) => {
    // Presence frames come on this socket too; only events count.
    if ((JSON.parse(message.data as string) as { type?: string }).type === 'event') scenario.arrive.resolve?.();
  };
  return scenario;
}

async function socketIo(): Promise<Scenario> {
  // A URL the page's server serves (not a module TypeScript resolves): held in a string.
  const clientUrl: string = '/node_modules/socket.io-client/dist/socket.io.esm.min.js';
  const { io } = (await import(/* @vite-ignore */ clientUrl)) as { io: typeof ioType };
  const a = io(sio, { transports: ['websocket'] });
  const b = io(sio, { transports: ['websocket'] });
  const scenario: Scenario = { id: 'socket.io-room', arrive: { resolve: null }, send: (i) => a.emit('m', { ...payload, i }) };
  b.on('m', () => scenario.arrive.resolve?.());
  await waitFor(() => a.connected && b.connected, 'socket.io connected');
  await new Promise<void>((resolve) => a.emit('join', 'room', () => resolve()));
  await new Promise<void>((resolve) => b.emit('join', 'room', () => resolve()));
  return scenario;
}

async function measure(scenario: Scenario, count: number, into: number[] | null): Promise<void> {
  for (let i = 0; i < count; i++) {
    const arrived = new Promise<void>((resolve) => (scenario.arrive.resolve = resolve));
    const start = performance.now();
    scenario.send(i);
    await arrived;
    into?.push(performance.now() - start);
  }
}

async function main(): Promise<void> {
  const scenarios = [
    await dispatchPair('ours-mesh', true),
    await rawDataChannel(),
    await dispatchPair('ours-relay', false),
    await rawWebSocket(),
    await socketIo(),
    await rawThroughOurs(),
  ];
  const results = new Map(scenarios.map((scenario) => [scenario.id, [] as number[]]));
  for (const scenario of scenarios) await measure(scenario, warmup, null);
  for (let round = 0; round < rounds; round++) {
    // A new order each round: a block's speed depends on the block before it (see order.ts).
    for (const scenario of roundOrder(scenarios, round)) await measure(scenario, Math.floor(samples / rounds), results.get(scenario.id)!);
  }
  window.__dispatchResults = { scenarios: [...results].map(([id, list]) => ({ id, samples: list })) };
}

main().catch((error: unknown) => {
  window.__dispatchResults = { scenarios: [], error: String(error) };
});
