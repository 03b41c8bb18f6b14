/**
 * Timing helpers shared by the bench page and its frames: the sequential
 * sample loop, port echoes, the clock's resolution, and the command loop a
 * frame serves.
 */
import type { FrameName, FrameReady, RunCommand, RunReply, ScenarioId, TimingEnvironment } from './protocol.js';
import { PATH } from './protocol.js';
import { startClock, startTrace, stopClock, stopTrace } from './trace.js';

/** Smallest positive step of performance.now() over a few thousand readings, in ms. */
export function timerResolutionMs(): number {
  let smallest = Number.POSITIVE_INFINITY;
  let last = performance.now();
  for (let seen = 0; seen < 2_000;) {
    const now = performance.now();
    if (now !== last) {
      smallest = Math.min(smallest, now - last);
      last = now;
      seen++;
    }
  }
  return smallest;
}

/** The environment of this page. */
export function timingEnvironment(): TimingEnvironment {
  return { crossOriginIsolated: globalThis.crossOriginIsolated, timerResolutionMs: timerResolutionMs() };
}

/**
 * Runs `count` sequential round trips. `once(i)` does one and returns its
 * duration in ms (it takes its own timestamps, so setup and the settling of
 * trailing replies stay outside the measurement).
 */
export async function sampleLoop(count: number, once: (i: number) => Promise<number>): Promise<number[]> {
  const samples = new Array<number>(count);
  for (let i = 0; i < count; i++) samples[i] = await once(i);
  return samples;
}

/**
 * Serves {@link RunCommand}s from the host page at `hostOrigin` with the
 * given scenario runners, and says {@link FrameReady} once.
 */
export function serveCommands(name: FrameName, hostOrigin: string, runners: { readonly [id in ScenarioId]?: (count: number) => Promise<number[]> }): void {
  window.addEventListener('message', (event: MessageEvent) => {
    if (event.origin !== hostOrigin || event.source !== window.parent) return;
    const command = event.data as Partial<RunCommand> | null;
    if (command?.benchCommand !== 'run' || typeof command.id !== 'number' || typeof command.count !== 'number') return;
    const id = command.id;
    const runner = command.scenario === undefined ? undefined : runners[command.scenario];
    const reply = (message: RunReply): void => window.parent.postMessage(message, hostOrigin);
    if (!runner) {
      reply({ benchReply: id, error: `frame ${name} does not run ${String(command.scenario)}` });
      return;
    }
    if (command.trace === true) startTrace();
    runner(command.count).then(
      (samples) => reply(command.trace === true ? { benchReply: id, samples, trace: stopTrace() } : { benchReply: id, samples }),
      (error: unknown) => reply({ benchReply: id, error: String((error as Error)?.stack ?? error) }),
    );
  });
  const ready: FrameReady = { benchReady: name, environment: timingEnvironment() };
  window.parent.postMessage(ready, hostOrigin);
}

/** Times one message to `port` and its echo back (the other end echoes, see {@link echo}). */
export function portRoundTrips(port: MessagePort): (count: number) => Promise<number[]> {
  const path = [...PATH];
  let arrive: (() => void) | null = null;
  let stoppedAt = 0;
  port.addEventListener('message', () => {
    stoppedAt = stopClock();
    arrive?.();
  });
  port.start();
  return (count) =>
    sampleLoop(count, (i) => {
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const startedAt = startClock();
      port.postMessage({ path, value: `value ${i}` });
      return arrived.then(() => stoppedAt - startedAt);
    });
}

/** Echoes every message on `port` back. */
export function echo(port: MessagePort): void {
  port.addEventListener('message', (event: MessageEvent) => port.postMessage(event.data));
  port.start();
}

/** The host page's origin, given to every frame as `?host=`. */
export function hostOriginFromQuery(): string {
  const host = new URLSearchParams(location.search).get('host');
  if (!host) throw new Error('bench frame needs ?host=<origin of the bench page>');
  return host;
}

/**
 * Call limits for a bench's own guest: thousands of calls a second are past a
 * guest's default allowance (DEFAULT_GUEST_LIMITS, which unlinks a flooding
 * guest), so a bench raises them. Finite, so every call still pays for the
 * check and the figures include it.
 */
export const BENCH_CALL_LIMITS = Object.freeze({ maxCallsPerSecond: 1e9, maxCallsBurst: 1e9, maxBytesPerSecond: 1e12, maxBytesBurst: 1e12 });
