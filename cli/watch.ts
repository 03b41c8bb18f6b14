/**
 * `platform-vcc watch` as a function: builds once, then rebuilds whenever a
 * customization file is added, changed or deleted.
 *
 * It watches the template root but ignores everything except the path down
 * to `.platform/customization/*.json`, so the directory may be created after
 * the watcher starts, no unrelated tree is walked, and the generated files
 * (written under `.platform/generated`) never trigger a rebuild of their own.
 */
import { watch } from 'chokidar';
import { dirname, resolve } from 'node:path';
import {
  createCustomizationBuilder,
  fingerprintCustomizationFiles,
  fingerprintsDiffer,
  type CustomizationBuilder,
  type CustomizationBuilderOptions,
  type CustomizationBuildResult,
} from './build-customization.js';
import { DEFAULT_DEBOUNCE_MS, VERIFY_DELAY_MS } from './timing.js';

export { DEFAULT_DEBOUNCE_MS, VERIFY_DELAY_MS } from './timing.js';

/** Options of {@link watchCustomization}. */
export interface WatchCustomizationOptions extends CustomizationBuilderOptions {
  /** Quiet time after the last file event before a rebuild. Default {@link DEFAULT_DEBOUNCE_MS}. */
  readonly debounceMs?: number;
  /** Called after every build, the first one included. */
  readonly onBuild?: (result: CustomizationBuildResult) => void;
  /** Called when a build or the file watcher fails; the watcher keeps running. */
  readonly onError?: (error: unknown) => void;
}

/** A running watcher. */
export interface CustomizationWatcher {
  /** The builder it rebuilds with. */
  readonly builder: CustomizationBuilder;
  /** Settles with the first build, once the file watcher is ready (events after this are never missed). */
  readonly ready: Promise<CustomizationBuildResult>;
  /** Stops watching; resolves after any build in progress has finished writing. */
  close(): Promise<void>;
}

/** Starts watching the customization files of the template at `options.root`. */
export function watchCustomization(options: WatchCustomizationOptions): CustomizationWatcher {
  const builder = createCustomizationBuilder(options);
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const onBuild = options.onBuild ?? (() => undefined);
  const onError = options.onError ?? (() => undefined);
  const root = builder.root;
  const customizationDir = builder.customizationDir;
  const platformDir = dirname(customizationDir);

  const isConfigFile = (path: string): boolean => dirname(path) === customizationDir && path.endsWith('.json');
  const isRelevant = (path: string): boolean => {
    const absolute = resolve(path);
    return absolute === root || absolute === platformDir || absolute === customizationDir || isConfigFile(absolute);
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  let verifyTimer: ReturnType<typeof setTimeout> | undefined;
  let lastResult: CustomizationBuildResult | undefined;
  let building: Promise<void> | undefined;
  let pending = false;
  let closed = false;

  const runBuild = async (): Promise<CustomizationBuildResult> => {
    const result = await builder.build();
    lastResult = result;
    if (!closed) onBuild(result);
    return result;
  };

  /** Remembers the build in progress; reports its failure; runs the build that events during it asked for. */
  const track = (build: Promise<unknown>): void => {
    building = build
      .then(
        () => undefined,
        (error: unknown) => {
          if (!closed) onError(error);
        },
      )
      .then(() => {
        building = undefined;
        if (closed) return;
        if (pending) {
          pending = false;
          rebuild();
        } else {
          if (verifyTimer !== undefined) clearTimeout(verifyTimer);
          verifyTimer = setTimeout(verify, VERIFY_DELAY_MS);
        }
      });
  };

  /** Rebuilds when the files differ from what the last build read, even without a file event. */
  const verify = (): void => {
    verifyTimer = undefined;
    const seen = lastResult?.fingerprints;
    // A build in progress or scheduled will look at the files anyway.
    if (closed || building || timer !== undefined || !seen) return;
    fingerprintCustomizationFiles(customizationDir).then(
      (now) => {
        if (!closed && !building && timer === undefined && fingerprintsDiffer(seen, now)) rebuild();
      },
      (error: unknown) => {
        if (!closed) onError(error);
      },
    );
  };

  const rebuild = (): void => {
    if (closed) return;
    // Events during a build are folded into one more build after it, never a parallel one.
    if (building) {
      pending = true;
      return;
    }
    track(runBuild());
  };

  const schedule = (): void => {
    if (closed) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      rebuild();
    }, debounceMs);
  };

  const watcher = watch(root, {
    ignoreInitial: true,
    // Called for every path chokidar meets; ignoring a directory stops it from descending.
    ignored: (path) => !isRelevant(path),
  });
  watcher.on('all', (_event, path) => {
    const absolute = resolve(path);
    if (absolute === customizationDir || isConfigFile(absolute)) schedule();
  });
  watcher.on('error', (error) => {
    if (!closed) onError(error);
  });

  let abandonReady: ((error: Error) => void) | undefined;
  const ready = new Promise<CustomizationBuildResult>((resolveReady, rejectReady) => {
    abandonReady = rejectReady;
    watcher.once('ready', () => {
      abandonReady = undefined;
      if (closed) return;
      const first = runBuild();
      track(first);
      resolveReady(first);
    });
  });
  // A caller that only uses onBuild/onError must not get an unhandled rejection.
  ready.catch(() => undefined);

  return {
    builder,
    ready,
    async close() {
      if (closed) return;
      closed = true;
      abandonReady?.(new Error('platform-kit: the watcher was closed before it was ready'));
      if (timer !== undefined) clearTimeout(timer);
      if (verifyTimer !== undefined) clearTimeout(verifyTimer);
      await watcher.close();
      await building;
    },
  };
}
