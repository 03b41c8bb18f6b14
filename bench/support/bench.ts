/**
 * What a benchmark module is, what the runner gives it, and small helpers
 * (statistics, tables) the benchmarks share. Node side only.
 *
 * A benchmark is a file `bench/<name>.bench.ts` that exports `description`
 * and `run(context)`; `bench/run.ts` finds it by that suffix, so adding one is
 * adding a file.
 */
import type { Browser } from 'playwright-core';

/** Options from the command line (`npm run bench -- [filters] [--samples=N] …`). */
export interface BenchOptions {
  /** Only benchmarks whose name contains one of these run; empty: all of them. */
  readonly filters: readonly string[];
  /** Measured samples per scenario (after the warm-up). */
  readonly samples: number;
  /** Warm-up iterations per scenario, not measured. */
  readonly warmup: number;
  /**
   * Blocks the samples are split into, the scenarios taking turns, so drift
   * hits each of them alike. Default 50 (100 round trips a block): this
   * machine's speed shifts between blocks of a few hundred ms.
   */
  readonly rounds: number;
  /** Serve pages cross-origin isolated (COOP/COEP), for 5 µs timers instead of 100 µs. Default true. */
  readonly isolate: boolean;
  /** Exit with status 1 when a target is missed (default: report only). */
  readonly strict: boolean;
  /** Write every benchmark's raw data (samples…) to this JSON file. */
  readonly json: string | null;
}

/** The dev server a browser benchmark loads its pages from. */
export interface BenchServer {
  /** Port of the server. */
  readonly port: number;
  /** `http://localhost:PORT`: the host page's origin. */
  readonly hostOrigin: string;
  /** `http://127.0.0.1:PORT`: the same server under another name, so another origin (and site) for iframes. */
  readonly templateOrigin: string;
}

/** What the runner gives each benchmark. Server and browser start on first use and are shared. */
export interface BenchContext {
  /** The repository root (where package.json is). */
  readonly rootDir: string;
  readonly options: BenchOptions;
  /** The dev server (esbuild for TypeScript, node resolution for bare imports), started on first call. */
  server(): Promise<BenchServer>;
  /** Headless Chromium (Debian's), launched on first call. */
  browser(): Promise<Browser>;
  /** Prints a line under the benchmark's heading. */
  log(line?: string): void;
}

/** One target of a benchmark, checked against what it measured. */
export interface TargetCheck {
  readonly name: string;
  readonly pass: boolean;
  /** The figures compared, e.g. `0.21 ms ≤ 1.5 × 0.15 ms`. */
  readonly detail: string;
}

/** What a benchmark returns. */
export interface BenchOutcome {
  readonly targets: readonly TargetCheck[];
  /** Raw data for `--json` (samples, sizes…): plain JSON. */
  readonly data?: unknown;
}

/** The shape of a `bench/<name>.bench.ts` module. */
export interface BenchModule {
  /** One line: what it measures. */
  readonly description: string;
  /** A diagnostic: runs only when a filter names it exactly, never in a plain `npm run bench`. */
  readonly onlyWhenNamed?: boolean;
  run(context: BenchContext): Promise<BenchOutcome>;
}

/** Summary statistics of a sample, in the sample's unit. */
export interface Stats {
  readonly count: number;
  readonly min: number;
  readonly median: number;
  readonly mean: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** Nearest-rank percentile of an ascending sorted array (`p` in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

/** Median (mean of the two middle values for an even count) and percentiles of `samples`. */
export function stats(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const count = sorted.length;
  const middle = Math.floor(count / 2);
  const median = count === 0 ? Number.NaN : count % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  const mean = count === 0 ? Number.NaN : sorted.reduce((sum, value) => sum + value, 0) / count;
  return {
    count,
    min: sorted[0] ?? Number.NaN,
    median,
    mean,
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[count - 1] ?? Number.NaN,
  };
}

/** Formats rows as a Markdown table (also readable in a terminal). Numbers are right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const numeric = header.map((_, column) => rows.length > 0 && rows.every((row) => /^[\d.,\s×%+-]*$|^n\/a$/.test(row[column] ?? '')));
  const cell = (text: string, column: number): string => (numeric[column] ? text.padStart(widths[column] ?? 0) : text.padEnd(widths[column] ?? 0));
  const line = (cells: readonly string[]): string => `| ${cells.map((text, column) => cell(text, column)).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (numeric[column] ? '-'.repeat(width + 1) + ':' : '-'.repeat(width + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** `value` in milliseconds with 3 decimals (µs precision). */
export function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(3) : 'n/a';
}

/** A ratio as `1.23×`. */
export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a';
}

/** Bytes with a thousands separator. */
export function bytes(value: number): string {
  return value.toLocaleString('en-US');
}
