// The Node suite beside CPU burners: what CI on 2 shared cores looks like (load averages of 10
// were seen there). A test that counts on the machine's speed (a bucket that must not refill, a
// deadline for a drop, a lease that must not lapse) goes red here; TESTING.md, "Tests that hold
// on a busy machine".
//
//   npm run test:under-load                 one run of `npm run test:node`
//   npm run test:under-load -- --runs 3     three in a row (stops at the first red one)
//   npm run test:under-load -- --burners 12 --min-load 8
//
// It starts the burners (child processes that spin, each bounded by its own deadline and by its
// parent: an orphan stops itself), waits until the 1-minute load average is above the target
// (4 per core unless --min-load says otherwise), runs the suite while it samples the load, and
// stops every process it started by pid: on success, on failure, on SIGINT and SIGTERM. A run
// passes when the suite passes and the load never fell under the target while it ran: a green
// suite on an idle machine proves nothing here.
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    burners: { type: 'string' },
    'min-load': { type: 'string' },
  },
});

const cores = availableParallelism();
const runs = wholeNumber(values.runs, '--runs');
/** Five spinners a core: with the suite's own processes, the load average settles above 4 a core. */
const burnerCount = values.burners === undefined ? 5 * cores : wholeNumber(values.burners, '--burners');
const minLoad = values['min-load'] === undefined ? 4 * cores : Number(values['min-load']);
/** How long the load may take to climb (the 1-minute average needs about a minute to reach 63%). */
const WARM_UP_LIMIT_MS = 4 * 60_000;
/** One suite run at most (it takes several minutes under load); past it the run is stopped and red. */
const SUITE_LIMIT_MS = 40 * 60_000;
/** A burner stops by itself after this even if nothing stops it (its parent was killed -9). */
const BURNER_LIFETIME_MS = runs * (SUITE_LIMIT_MS + WARM_UP_LIMIT_MS) + 60_000;
const SAMPLE_EVERY_MS = 5_000;

function wholeNumber(text: string | undefined, name: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`platform-kit under-load: ${name} is a whole number of at least 1`);
  return value;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const load = (): number => loadavg()[0] ?? 0;
const say = (line: string): void => void process.stderr.write(`[under-load] ${line}\n`);

// A spinner that checks, every few million iterations, its deadline and whether its parent still
// lives (signal 0; process.ppid is read once at startup, so it cannot tell): when this script is
// killed -9 the burners stop within milliseconds. The suite, which leads a process group of its
// own, then runs to its end (it is bounded by its own timeouts).
const BURNER_SOURCE = `
const end = Date.now() + ${BURNER_LIFETIME_MS};
const parent = process.ppid;
const parentLives = () => {
  try {
    process.kill(parent, 0);
    return true;
  } catch {
    return false;
  }
};
for (;;) {
  for (let i = 0; i < 5e6; i++);
  if (Date.now() > end || !parentLives()) process.exit(0);
}`;

const burners: ChildProcess[] = [];
/** The suite's process group (npm, its shell, node and the servers the tests start), while it runs. */
let suite: ChildProcess | null = null;

function startBurners(): void {
  for (let i = 0; i < burnerCount; i++) burners.push(spawn(process.execPath, ['-e', BURNER_SOURCE], { stdio: 'ignore' }));
  say(`${burnerCount} CPU burners started (pids ${burners.map((b) => b.pid).join(' ')}) on ${cores} cores; target load average > ${minLoad}`);
}

/** Stops what this script started, each by its pid (the suite by its process group, which it leads). */
function stopAll(): void {
  if (suite?.pid !== undefined && suite.exitCode === null && suite.signalCode === null) {
    try {
      process.kill(-suite.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  for (const burner of burners.splice(0)) if (burner.exitCode === null && burner.signalCode === null) burner.kill('SIGKILL');
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`${signal}: stopping the burners and the suite`);
    stopAll();
    process.exit(130);
  });
}
process.once('exit', stopAll);

/** Waits until the load average is above the target; false when it did not get there in {@link WARM_UP_LIMIT_MS}. */
async function warmUp(): Promise<boolean> {
  const start = Date.now();
  while (load() <= minLoad) {
    if (Date.now() - start > WARM_UP_LIMIT_MS) return false;
    await sleep(2_000);
  }
  say(`load average ${load().toFixed(2)} after ${Math.round((Date.now() - start) / 1000)} s of warm-up`);
  return true;
}

interface RunResult {
  readonly passed: boolean;
  readonly code: number | null;
  readonly seconds: number;
  readonly samples: readonly number[];
  /** The reporter's closing counts (`ℹ pass 12`…) and the names of failed tests. */
  readonly summary: readonly string[];
}

async function runSuite(): Promise<RunResult> {
  const samples: number[] = [load()];
  const sampler = setInterval(() => {
    samples.push(load());
    // A line a minute in the suite's output: where a test went red, the load it went red under.
    if (samples.length % (60_000 / SAMPLE_EVERY_MS) === 0) say(`load average ${load().toFixed(2)}`);
  }, SAMPLE_EVERY_MS);
  const start = Date.now();
  // detached: the suite leads a process group of its own, so one kill of -pid stops all of it.
  const child = spawn('npm', ['run', '--silent', 'test:node'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  suite = child;
  const summary: string[] = [];
  let pending = '';
  const keep = (chunk: Buffer): void => {
    process.stdout.write(chunk);
    pending += String(chunk);
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (/^ℹ (tests|pass|fail|cancelled|skipped|todo|duration_ms) |^\s*✖ /.test(line)) summary.push(line.trim());
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  const limit = setTimeout(() => {
    say(`the suite ran past ${SUITE_LIMIT_MS / 60_000} min: stopped`);
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, SUITE_LIMIT_MS);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(limit);
  clearInterval(sampler);
  suite = null;
  samples.push(load());
  return { passed: code === 0, code, seconds: Math.round((Date.now() - start) / 1000), samples, summary: [...new Set(summary)] };
}

function describeLoad(samples: readonly number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): string => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(2);
  return `load average min ${at(0)}, median ${at(0.5)}, max ${at(1)} (${samples.length} samples, every ${SAMPLE_EVERY_MS / 1000} s)`;
}

async function main(): Promise<number> {
  startBurners();
  const results: string[] = [];
  let status = 0;
  for (let run = 1; run <= runs; run++) {
    // Each run starts under the full load, not in the dip after the previous suite's processes ended.
    if (!(await warmUp())) {
      say(`run ${run}: the load average stayed at ${load().toFixed(2)}, not above ${minLoad}: add burners (--burners)`);
      return 2;
    }
    say(`run ${run} of ${runs}: npm run test:node`);
    const result = await runSuite();
    const loaded = Math.min(...result.samples) > minLoad;
    const verdict = result.passed && loaded ? 'PASS' : result.passed ? 'PASS, but not under load' : `FAIL (exit ${result.code})`;
    results.push(`run ${run}: ${verdict} in ${result.seconds} s; ${describeLoad(result.samples)}`);
    for (const line of result.summary) results.push(`  ${line}`);
    if (!(result.passed && loaded)) {
      status = result.passed ? 2 : 1;
      break;
    }
  }
  say('report');
  for (const line of results) say(line);
  return status;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  stopAll();
}
process.exit(exitCode);
