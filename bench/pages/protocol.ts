import type { TraceEvent } from './trace.js';

/**
 * The link round-trip benchmark's own control traffic between the bench page
 * (host, http://localhost:PORT) and its frames (http://127.0.0.1:PORT), and
 * the result the page hands to Node. Control messages travel on `window`
 * postMessage and are never timed: a frame runs a whole block of round trips
 * for one command and answers with the samples.
 */

/** The frames of the bench page. */
export type FrameName = 'template' | 'echo' | 'penpal';

/** Where a scenario's timing loop runs. */
export type Timer = FrameName | 'host';

/** Every scenario the bench page measures, in the order printed. */
export const SCENARIOS = [
  {
    id: 'ours',
    timer: 'template',
    label: 'platform-kit: onSetValue → host (TemplateFrame + RemixSession) → onValueChanged',
  },
  {
    id: 'raw-cross',
    timer: 'host',
    label: 'raw MessageChannel echo, cross-origin iframe (port handed to the iframe, iframe echoes)',
  },
  {
    id: 'raw-local',
    timer: 'echo',
    label: 'raw MessageChannel echo, within one page',
  },
  {
    id: 'penpal-shape',
    timer: 'penpal',
    label: 'penpal 7: child calls parent.setValue, which calls child.valueChanged; stop in valueChanged',
  },
  {
    id: 'penpal-call',
    timer: 'penpal',
    label: 'penpal 7: child awaits parent.echo(x)',
  },
  {
    id: 'raw-cross-guest',
    timer: 'echo',
    label: 'raw MessageChannel echo, cross-origin iframe, timed in the iframe (host echoes)',
  },
  {
    id: 'comlink-shape',
    timer: 'echo',
    label: 'bare comlink, same shape as ours (no guard, envelope, validation, timeout)',
  },
  {
    id: 'rpc-shape',
    timer: 'echo',
    label: 'protocol/rpc.ts alone (comlink + guard + envelope + timeouts), same shape, no checks, clones or session',
  },
  {
    id: 'lean-shape',
    timer: 'echo',
    label: 'reference: a minimal request/response over the port (bench/pages/lean-rpc.ts), same shape',
  },
  {
    id: 'comlink-call',
    timer: 'echo',
    label: 'bare comlink: iframe awaits host.setValue(path, value)',
  },
  {
    id: 'ours-ack',
    timer: 'template',
    label: 'platform-kit: await onSetValue(path, v, skipUpdate = true) (one call, no echo)',
  },
] as const satisfies readonly { id: string; timer: Timer; label: string }[];

/** A scenario's id. */
export type ScenarioId = (typeof SCENARIOS)[number]['id'];

/** Host → frame: run `count` sequential round trips of `scenario` and answer with each one's duration. */
export interface RunCommand {
  readonly benchCommand: 'run';
  readonly id: number;
  readonly scenario: ScenarioId;
  readonly count: number;
  /** Stamp the frame's port traffic during the block (pages opened with ?trace only). */
  readonly trace?: boolean;
}

/** Frame → host: the answer to a {@link RunCommand}. */
export interface RunReply {
  readonly benchReply: number;
  /** Durations in milliseconds, in order. */
  readonly samples?: readonly number[];
  readonly error?: string;
  /** With {@link RunCommand.trace}: what the frame stamped. */
  readonly trace?: readonly TraceEvent[];
}

/** Frame → host: the frame is set up and waits for commands. */
export interface FrameReady {
  readonly benchReady: FrameName;
  readonly environment: TimingEnvironment;
}

/** Host → echo frame: the ports of the raw and comlink scenarios, transferred in this order. */
export interface EchoPorts {
  readonly benchPorts: readonly ['raw-cross', 'raw-cross-guest', 'comlink', 'rpc', 'lean'];
}

/** What a page knows about its clock. */
export interface TimingEnvironment {
  readonly crossOriginIsolated: boolean;
  /** Smallest step of performance.now() seen, in ms. */
  readonly timerResolutionMs: number;
}

/** Samples of one scenario. */
export interface ScenarioSamples {
  readonly id: ScenarioId;
  readonly label: string;
  readonly timer: Timer;
  /** Measured durations in ms, warm-up excluded. */
  readonly samples: readonly number[];
}

/** What the bench page resolves `window.__results` with. */
export interface LinkRoundtripResults {
  readonly userAgent: string;
  readonly samplesPerScenario: number;
  readonly warmupPerScenario: number;
  readonly rounds: number;
  /** Length of each round's block (every scenario's samples are these blocks, in order). */
  readonly blockLengths: readonly number[];
  readonly environments: { readonly [name in Timer]?: TimingEnvironment };
  readonly scenarios: readonly ScenarioSamples[];
}

/** What the bench page offers with `?manual` (the profiler drives it). */
export interface BenchPageApi {
  readonly environments: { readonly [name in Timer]?: TimingEnvironment };
  /** Runs `count` sequential round trips of `scenario` where it is timed; resolves with the durations in ms. */
  runBlock(scenario: ScenarioId, count: number): Promise<number[]>;
  /**
   * With `?manual&trace`: runs a block of a scenario timed in a frame while
   * both ends stamp their port traffic (the other end is the host page).
   */
  traceBlock(scenario: ScenarioId, count: number): Promise<TracedBlock>;
}

/** A traced block: samples and the stamps of both ends. */
export interface TracedBlock {
  readonly samples: readonly number[];
  /** The frame that timed the round trips. */
  readonly timer: readonly TraceEvent[];
  /** The host page: the other end. */
  readonly peer: readonly TraceEvent[];
}

/** The value every round trip carries: a VCC path and a short string, like a text control's edit. */
export const PATH = ['card', 'title'] as const;

/** Host side of the bare comlink scenarios. */
export interface ComlinkHostApi {
  /** Calls the guest's valueChanged back without awaiting it, like RemixSession does. */
  setValue(path: string[], value: string): void;
  /** Returns at once: one call and its answer. */
  store(path: string[], value: string): void;
}

/** Guest side of the bare comlink scenarios. */
export interface ComlinkGuestApi {
  valueChanged(path: string[], value: string): void;
}

/** Host side of the rpc-only scenario (protocol/rpc.ts without the guest and host classes). */
export interface RpcHostApi {
  /** Calls the guest's valueChanged back through its caller without awaiting it. */
  setValue(path: string[], value: string): void;
}

/** Guest side of the rpc-only scenario. */
export interface RpcGuestApi {
  valueChanged(path: string[], value: string): void;
}

/** Methods the bench page exposes to the penpal child (a type alias: penpal wants an index-compatible type). */
export type PenpalParentApi = {
  /** Calls the child's valueChanged back without awaiting it, like RemixSession does. */
  setValue(path: string[], value: string): void;
  /** Returns its argument. */
  echo(value: string): string;
};

/** Methods the penpal child exposes to the bench page. */
export type PenpalChildApi = {
  valueChanged(path: string[], value: string): void;
};
