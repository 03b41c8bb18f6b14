// The baselines' frame (origin http://127.0.0.1:PORT): raw MessageChannel
// echoes and bare comlink over ports the bench page transfers, and an echo
// within this page. The same payload as ours: a VCC path and a short string.
import { expose, wrap } from 'comlink';
import { linkPort } from '../../protocol/rpc.js';
import { leanEndpoint } from './lean-rpc.js';
import { PATH, type ComlinkGuestApi, type ComlinkHostApi, type EchoPorts, type RpcHostApi } from './protocol.js';
import { echo, hostOriginFromQuery, portRoundTrips, sampleLoop, serveCommands } from './round-trips.js';
import { installTrace, startClock, stopClock, traceRequested } from './trace.js';
import { applyWhatIfFromQuery } from './what-if.js';

if (traceRequested()) installTrace();
applyWhatIfFromQuery();
const hostOrigin = hostOriginFromQuery();
const path = [...PATH];

/** Bare comlink both ways on one port, as our link does, without its guard, envelopes, checks and timeouts. */
function comlinkScenarios(port: MessagePort): { shape: (count: number) => Promise<number[]>; call: (count: number) => Promise<number[]> } {
  let arrive: (() => void) | null = null;
  let stoppedAt = 0;
  const guestApi: ComlinkGuestApi = {
    valueChanged() {
      stoppedAt = stopClock();
      arrive?.();
    },
  };
  expose(guestApi, port);
  const host = wrap<ComlinkHostApi>(port);
  return {
    shape: (count) =>
      sampleLoop(count, (i) => {
        const arrived = new Promise<void>((resolve) => (arrive = resolve));
        const startedAt = startClock();
        const answered = host.setValue(path, `value ${i}`);
        return arrived.then(async () => {
          const elapsed = stoppedAt - startedAt;
          await answered;
          return elapsed;
        });
      }),
    call: (count) =>
      sampleLoop(count, async (i) => {
        const startedAt = startClock();
        await host.store(path, `value ${i}`);
        return stopClock() - startedAt;
      }),
  };
}

/** protocol/rpc.ts both ways on one port, as guest/link.ts sets it up, with the same call timeout. */
function rpcShape(port: MessagePort): (count: number) => Promise<number[]> {
  let arrive: (() => void) | null = null;
  let stoppedAt = 0;
  const { caller: host } = linkPort<RpcHostApi>(port, {
    allowed: ['valueChanged'],
    handlers: {
      valueChanged: () => {
        stoppedAt = stopClock();
        arrive?.();
      },
    },
    callTimeoutMs: 5_000,
  });
  port.start();
  return (count) =>
    sampleLoop(count, (i) => {
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const startedAt = startClock();
      const answered = host.call('setValue', path, `value ${i}`);
      return arrived.then(async () => {
        const elapsed = stoppedAt - startedAt;
        await answered;
        return elapsed;
      });
    });
}

/** The lean reference protocol, same shape. */
function leanShape(port: MessagePort): (count: number) => Promise<number[]> {
  let arrive: (() => void) | null = null;
  let stoppedAt = 0;
  const host = leanEndpoint(port, {
    valueChanged: () => {
      stoppedAt = stopClock();
      arrive?.();
    },
  });
  return (count) =>
    sampleLoop(count, (i) => {
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const startedAt = startClock();
      const answered = host.call('setValue', path, `value ${i}`);
      return arrived.then(async () => {
        const elapsed = stoppedAt - startedAt;
        await answered;
        return elapsed;
      });
    });
}

// A port pair within this page: the echo runs on this page's event loop too.
const local = new MessageChannel();
echo(local.port2);
const localRoundTrips = portRoundTrips(local.port1);

window.addEventListener('message', function onPorts(event: MessageEvent) {
  if (event.origin !== hostOrigin || event.source !== window.parent) return;
  const names = (event.data as Partial<EchoPorts> | null)?.benchPorts;
  if (!Array.isArray(names)) return;
  window.removeEventListener('message', onPorts);
  const [rawCross, rawCrossGuest, comlinkPort, rpcPort, leanPort] = event.ports;
  if (!rawCross || !rawCrossGuest || !comlinkPort || !rpcPort || !leanPort) throw new Error('echo frame: expected five ports');
  echo(rawCross);
  const comlink = comlinkScenarios(comlinkPort);
  serveCommands('echo', hostOrigin, {
    'raw-local': localRoundTrips,
    'raw-cross-guest': portRoundTrips(rawCrossGuest),
    'comlink-shape': comlink.shape,
    'comlink-call': comlink.call,
    'rpc-shape': rpcShape(rpcPort),
    'lean-shape': leanShape(leanPort),
  });
});
// Ask for the ports: the host answers this message with them.
window.parent.postMessage({ benchWantsPorts: true }, hostOrigin);
