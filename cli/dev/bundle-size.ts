/**
 * The bundle-size check of `platform-kit dev`: the template built as `vite build` would build it
 * (the author's config, in memory, nothing written), its JavaScript gzipped, against a budget.
 *
 * Why a build and not what the dev server serves: dev serves every module unminified and one by
 * one; a host downloads the build. Why gzipped: that is what crosses the network.
 *
 * The budget, {@link BUNDLE_BUDGET_BYTES} (100 KiB of JavaScript, gzipped): a feed's target is
 * the first template visible and interactive within 1 s (bench/demo-start, issue 18), and a
 * feed loads a preloaded neighbour at the same time. On a phone on "slow 4G" (Lighthouse's
 * mobile throttling: 1.6 Mbit/s, about 200 KB/s), 100 KiB takes half of that second, leaving
 * the other half for the round trips, parsing and the first frame. The kit's guest with
 * Platform.dispatch (peerjs) is about 46 KB of it (bench/guest-size), the rest is the template's.
 *
 * The build runs when the workbench asks, not at start (dev's start stays fast), once per change
 * of the template's files: a change marks it stale and, while a workbench page listens, builds
 * again a moment later (one build for a burst of saves).
 */
import { gzipSync } from 'node:zlib';
import { build, type Rollup } from 'vite';

/** The budget: JavaScript of the built template, gzipped (see the comment at the top for why). */
export const BUNDLE_BUDGET_BYTES = 100 * 1024;
/** Saves closer than this make one build. */
const REBUILD_DELAY_MS = 1_500;

/** What the check shows. */
export type BundleReport =
  | { readonly ok: true; readonly gzipBytes: number; readonly budgetBytes: number; readonly files: readonly { readonly name: string; readonly gzipBytes: number }[] }
  | { readonly ok: false; readonly error: string; readonly budgetBytes: number };

export class BundleSize {
  readonly #root: string;
  readonly #onReport: (report: BundleReport) => void;
  #current: Promise<BundleReport> | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;

  /** `onReport` hears every build made after a change (the workbench pushes it to the page). */
  constructor(root: string, onReport: (report: BundleReport) => void) {
    this.#root = root;
    this.#onReport = onReport;
  }

  /** The latest build's report, building now if there is none. */
  report(): Promise<BundleReport> {
    this.#current ??= this.#build();
    return this.#current;
  }

  /** A file of the template changed: stale now; rebuilt soon when `listening` (a workbench page is open). */
  changed(listening: boolean): void {
    this.#current = null;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (!listening || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.report().then((report) => {
        if (!this.#closed) this.#onReport(report);
      });
    }, REBUILD_DELAY_MS);
    this.#timer.unref();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
  }

  async #build(): Promise<BundleReport> {
    try {
      const output = await build({ root: this.#root, logLevel: 'silent', build: { write: false, emptyOutDir: false, reportCompressedSize: false } });
      const chunks = (Array.isArray(output) ? output : [output]).flatMap((result) => ('output' in result ? result.output : []));
      const files = chunks
        .filter((item): item is Rollup.OutputChunk => item.type === 'chunk')
        .map((chunk) => ({ name: chunk.fileName, gzipBytes: gzipSync(chunk.code, { level: 9 }).length }));
      const gzipBytes = files.reduce((sum, file) => sum + file.gzipBytes, 0);
      return { ok: true, gzipBytes, budgetBytes: BUNDLE_BUDGET_BYTES, files };
    } catch (error) {
      return { ok: false, error: (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '', budgetBytes: BUNDLE_BUDGET_BYTES };
    }
  }
}
