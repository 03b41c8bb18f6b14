// The bench page (http://localhost:PORT/bench/link-roundtrip.html): the host
// side of every scenario, and the conductor. It embeds three frames on the
// other origin (http://127.0.0.1:PORT): our template through TemplateFrame and
// RemixSession, the raw/comlink echo frame, and penpal's child. It runs the
// scenarios in turns (warm-up first, then `rounds` blocks each) and resolves
// window.__results with every sample.
import { expose, wrap } from 'comlink';
import { connect, WindowMessenger } from 'penpal';
// The classes' own modules, not host/index.ts: that one also loads the Lit elements, which this page does not use.
import { RemixSession } from '../../host/remix-session.js';
import { TemplateFrame } from '../../host/template-frame.js';
import { linkPort } from '../../protocol/rpc.js';
import {
  SCENARIOS,
  type ComlinkGuestApi,
  type ComlinkHostApi,
  type EchoPorts,
  type FrameName,
  type FrameReady,
  type BenchPageApi,
  type LinkRoundtripResults,
  type PenpalChildApi,
  type PenpalParentApi,
  type RpcGuestApi,
  type RunCommand,
  type RunReply,
  type ScenarioId,
  type Timer,
  type TimingEnvironment,
  type TracedBlock,
} from './protocol.js';
import { leanEndpoint } from './lean-rpc.js';
import { roundOrder } from './order.js';
import { BENCH_CALL_LIMITS, echo, portRoundTrips, timingEnvironment } from './round-trips.js';
import { installTrace, startTrace, stopTrace, traceRequested } from './trace.js';
import { applyWhatIfFromQuery } from './what-if.js';

declare global {
  interface Window {
    /** The benchmark's results, resolved when every scenario ran (not set with ?manual). */
    __results?: Promise<LinkRoundtripResults>;
    /** With ?manual: resolves once every frame is set up, with a way to run blocks (for profiling). */
    __bench?: Promise<BenchPageApi>;
  }
}

const query = new URLSearchParams(location.search);
const trace = query.has('manual') && traceRequested();
if (trace) installTrace();
/** Diagnostic patches (bench/pages/what-if.ts), only with ?manual; passed on to the frames. */
const whatIf = query.has('manual') ? applyWhatIfFromQuery() : [];
const samplesPerScenario = Number(query.get('samples') ?? 5_000);
const warmupPerScenario = Number(query.get('warmup') ?? 1_000);
const rounds = Number(query.get('rounds') ?? 50);
const hostOrigin = location.origin;
const templateOrigin = `http://127.0.0.1:${location.port}`;
/** Lets the frames be cross-origin isolated too when the server sends COOP/COEP (5 µs timers). */
const ALLOW = 'cross-origin-isolated';
const SETUP_TIMEOUT_MS = 30_000;
const BLOCK_TIMEOUT_MS = 120_000;

function frameUrl(name: string): string {
  const url = new URL(`/bench/pages/${name}.html`, templateOrigin);
  url.searchParams.set('host', hostOrigin);
  if (trace) url.searchParams.set('trace', '1');
  if (whatIf.length > 0) url.searchParams.set('whatif', whatIf.join(','));
  return url.toString();
}

function plainIframe(name: string): HTMLIFrameElement {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('allow', ALLOW);
  iframe.src = frameUrl(name);
  document.body.append(iframe);
  return iframe;
}

/** A callback of a baseline failed (as RemixSession does, the host reports and goes on). */
function reportLost(error: unknown): void {
  console.error('bench: a callback failed', error);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bench: timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Builds every frame and link; resolves when all are ready to run. */
async function setUp(): Promise<BenchPageApi> {
  // Control traffic from the frames: ready signals, command replies, the echo frame's request for ports.
  const readyWaiters = new Map<FrameName, (environment: TimingEnvironment) => void>();
  const ready = new Map<FrameName, Promise<TimingEnvironment>>(
    (['template', 'echo', 'penpal'] as const).map((name) => [name, new Promise<TimingEnvironment>((resolve) => readyWaiters.set(name, resolve))]),
  );
  const replies = new Map<number, (reply: RunReply) => void>();
  const channels = { rawCross: new MessageChannel(), rawCrossGuest: new MessageChannel(), comlink: new MessageChannel(), rpc: new MessageChannel(), lean: new MessageChannel() };

  window.addEventListener('message', (event: MessageEvent) => {
    if (event.origin !== templateOrigin) return;
    const data = event.data as Partial<FrameReady & RunReply & { benchWantsPorts: true }> | null;
    if (typeof data?.benchReady === 'string' && data.environment) readyWaiters.get(data.benchReady)?.(data.environment);
    if (typeof data?.benchReply === 'number') {
      replies.get(data.benchReply)?.(data as RunReply);
      replies.delete(data.benchReply);
    }
    if (data?.benchWantsPorts === true && echoIframe.contentWindow && event.source === echoIframe.contentWindow) {
      const message: EchoPorts = { benchPorts: ['raw-cross', 'raw-cross-guest', 'comlink', 'rpc', 'lean'] };
      const { rawCross, rawCrossGuest, comlink, rpc, lean } = channels;
      echoIframe.contentWindow.postMessage(message, templateOrigin, [rawCross.port2, rawCrossGuest.port2, comlink.port2, rpc.port2, lean.port2]);
    }
  });

  // Ours: the real host classes.
  // The bench makes thousands of calls a second, far past a guest's default allowance (DEFAULT_GUEST_LIMITS): limits
  // this high keep the check in every call (its cost is measured) without unlinking the bench's own guest.
  const frame = new TemplateFrame({ src: frameUrl('template'), container: document.body, allow: ALLOW, title: 'bench template', ...BENCH_CALL_LIMITS });
  const session = new RemixSession();
  session.attach(frame);
  session.on('error', (error) => console.error('bench: session error', error));
  frame.on('error', (error) => console.error('bench: frame error', error));

  // Raw and bare comlink baselines.
  const echoIframe = plainIframe('echo');
  echo(channels.rawCrossGuest.port1);
  const rawCross = portRoundTrips(channels.rawCross.port1);
  const comlinkGuest = wrap<ComlinkGuestApi>(channels.comlink.port1);
  const comlinkHost: ComlinkHostApi = {
    setValue(path, value) {
      comlinkGuest.valueChanged(path, value).catch(reportLost);
    },
    store() {},
  };
  expose(comlinkHost, channels.comlink.port1);
  const { caller: rpcGuest } = linkPort<RpcGuestApi>(channels.rpc.port1, {
    allowed: ['setValue'],
    handlers: {
      setValue: (path, value) => {
        rpcGuest.call('valueChanged', path as string[], value as string).catch(reportLost);
      },
    },
    callTimeoutMs: 5_000,
  });
  channels.rpc.port1.start();
  const leanGuest = leanEndpoint(channels.lean.port1, {
    setValue: (path: string[], value: string) => {
      leanGuest.call('valueChanged', path, value).catch(reportLost);
    },
  });

  // penpal 7.
  const penpalIframe = plainIframe('penpal-child');
  let penpalChild: { valueChanged(path: string[], value: string): Promise<void> } | null = null;
  const penpalParentApi: PenpalParentApi = {
    setValue(path, value) {
      penpalChild?.valueChanged(path, value).catch(reportLost);
    },
    echo: (value) => value,
  };
  const penpal = connect<PenpalChildApi>({
    messenger: new WindowMessenger({ remoteWindow: penpalIframe.contentWindow as Window, allowedOrigins: [templateOrigin] }),
    methods: penpalParentApi,
    timeout: SETUP_TIMEOUT_MS,
  });
  penpalChild = await withTimeout(penpal.promise, SETUP_TIMEOUT_MS, 'penpal to connect');

  const environments: { [name in Timer]?: TimingEnvironment } = { host: timingEnvironment() };
  for (const [name, promise] of ready) environments[name] = await withTimeout(promise, SETUP_TIMEOUT_MS, `the ${name} frame`);

  const frameWindows: { [name in FrameName]: () => Window | null } = {
    template: () => frame.iframe.contentWindow,
    echo: () => echoIframe.contentWindow,
    penpal: () => penpalIframe.contentWindow,
  };
  let nextId = 1;
  const timerOf = (scenario: ScenarioId): Timer => {
    const timer = SCENARIOS.find((candidate) => candidate.id === scenario)?.timer;
    if (timer === undefined) throw new Error(`bench: no scenario ${scenario}`);
    return timer;
  };
  const runInFrame = (scenario: ScenarioId, timer: FrameName, count: number, traced: boolean): Promise<RunReply> => {
    const target = frameWindows[timer]();
    if (!target) throw new Error(`bench: the ${timer} frame has no window`);
    const id = nextId++;
    const reply = new Promise<RunReply>((resolve) => replies.set(id, resolve));
    const command: RunCommand = traced ? { benchCommand: 'run', id, scenario, count, trace: true } : { benchCommand: 'run', id, scenario, count };
    target.postMessage(command, templateOrigin);
    return withTimeout(reply, BLOCK_TIMEOUT_MS, `${scenario} (${count} round trips)`).then((answer) => {
      if (answer.error !== undefined || !answer.samples) throw new Error(`bench: ${scenario} failed in the ${timer} frame: ${answer.error}`);
      return answer;
    });
  };
  const runBlock = async (scenario: ScenarioId, count: number): Promise<number[]> => {
    const timer = timerOf(scenario);
    if (timer === 'host') {
      if (scenario !== 'raw-cross') throw new Error(`bench: the host page does not time ${scenario}`);
      return rawCross(count);
    }
    return [...((await runInFrame(scenario, timer, count, false)).samples ?? [])];
  };
  const traceBlock = async (scenario: ScenarioId, count: number): Promise<TracedBlock> => {
    const timer = timerOf(scenario);
    if (!trace) throw new Error('bench: open the page with ?manual&trace to trace');
    if (timer === 'host') throw new Error(`bench: ${scenario} is timed in the host page; trace a scenario timed in a frame`);
    startTrace();
    try {
      const answer = await runInFrame(scenario, timer, count, true);
      return { samples: answer.samples ?? [], timer: answer.trace ?? [], peer: stopTrace() };
    } finally {
      stopTrace();
    }
  };

  return { environments, runBlock, traceBlock };
}

/** Runs every scenario: warm-up, then interleaved measured blocks. */
async function runAll(bench: BenchPageApi): Promise<LinkRoundtripResults> {
  const { environments, runBlock } = bench;
  // Warm-up: every scenario once, discarded (JIT, first-call paths, port setup).
  for (const scenario of SCENARIOS) await runBlock(scenario.id, warmupPerScenario);
  // Measured: `rounds` blocks per scenario, in a new order each round, so position, the block
  // before and drift hit all alike (see order.ts).
  const samples = new Map<ScenarioId, number[]>(SCENARIOS.map((scenario) => [scenario.id, []]));
  const blockLengths: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const count = Math.floor(samplesPerScenario / rounds) + (round < samplesPerScenario % rounds ? 1 : 0);
    blockLengths.push(count);
    for (const scenario of roundOrder(SCENARIOS, round)) samples.get(scenario.id)?.push(...(await runBlock(scenario.id, count)));
  }

  return {
    userAgent: navigator.userAgent,
    samplesPerScenario,
    warmupPerScenario,
    rounds,
    blockLengths,
    environments,
    scenarios: SCENARIOS.map((scenario) => ({ id: scenario.id, label: scenario.label, timer: scenario.timer, samples: samples.get(scenario.id) ?? [] })),
  };
}

// Keep unhandled rejections out of the console: the runner reads a failure from the promise.
if (query.has('manual')) {
  window.__bench = setUp();
  window.__bench.catch(() => undefined);
} else {
  window.__results = setUp().then(runAll);
  window.__results.catch(() => undefined);
}
