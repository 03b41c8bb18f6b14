/**
 * The Vite plugin (`platform-kit/vite`): builds the template's customization
 * with Vite instead of a separate `platform-vcc watch`.
 *
 * - It writes the same generated files as the command line (so TypeScript
 *   sees `customization.d.ts`), at build start and on every change.
 * - It serves `virtual:platform-kit/customization`, whose code is exactly the
 *   generated `customization.js`, and prepends an import of it to every
 *   page, so `get()` has the built values before the template's own script runs.
 * - In dev it rebuilds when a customization file changes and hot-updates the
 *   virtual module; the module accepts itself, so values change in place
 *   without a page reload.
 *
 * Problems in the files are warnings in Vite's log, never a failed build or
 * a crashed server: the last good version of a file is used meanwhile.
 *
 * @example
 * // vite.config.ts
 * import { platformKit } from 'platform-kit/vite';
 * export default { plugins: [platformKit()] };
 */
import { dirname, resolve } from 'node:path';
import type { Logger, Plugin, ResolvedConfig, ViteDevServer } from 'vite';
import {
  createCustomizationBuilder,
  fingerprintCustomizationFiles,
  fingerprintsDiffer,
  formatProblem,
  type CustomizationBuilder,
  type CustomizationBuildResult,
  type Env,
} from './build-customization.js';
import { VITE_HOT_ACCEPT } from './generate.js';
import { DEFAULT_DEBOUNCE_MS, VERIFY_DELAY_MS } from './timing.js';

/** The id a template imports to register its built customization. */
export const VIRTUAL_MODULE_ID = 'virtual:platform-kit/customization';
/** The resolved id (`\0` keeps other plugins from treating it as a file). */
const RESOLVED_VIRTUAL_MODULE_ID = `\0${VIRTUAL_MODULE_ID}`;

/** Options of {@link platformKit}. */
export interface PlatformKitPluginOptions {
  /** The template root, which holds `.platform/`; relative to Vite's root. Default: Vite's root. */
  readonly root?: string;
  /** Where to write the generated files; relative to the template root. Default `.platform/generated`. */
  readonly outDir?: string;
  /**
   * Prepend `<script type="module">import 'virtual:platform-kit/customization'</script>`
   * to every page's head. Default true; set false to import the module yourself.
   */
  readonly inject?: boolean;
  /** Environment the predefined values are read from. Default `process.env`. */
  readonly env?: Env;
  /** Where to write `platform-env.d.ts` (relative to the template root), or false for none. Default `src/` when there is one, else the root. */
  readonly envTypes?: string | false;
}

/** Creates the Platform Kit Vite plugin. */
export function platformKit(options: PlatformKitPluginOptions = {}): Plugin {
  let builder: CustomizationBuilder | undefined;
  let logger: Logger | undefined;
  let command: ResolvedConfig['command'] = 'serve';
  let latest: Promise<CustomizationBuildResult | undefined> | undefined;
  /** The problems last shown, so that buildStart of each environment does not show them again. */
  let shownProblems = '';
  /** The warnings last shown (unknown type names…), likewise. */
  let shownWarnings = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  let verifyTimer: ReturnType<typeof setTimeout> | undefined;
  const stopTimers = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    if (verifyTimer !== undefined) clearTimeout(verifyTimer);
    timer = verifyTimer = undefined;
  };

  const requireBuilder = (): CustomizationBuilder => {
    if (!builder) throw new Error('platform-kit: the Vite plugin was used before Vite resolved its config');
    return builder;
  };

  /**
   * Builds and logs; never rejects, so a broken file or a failed write cannot
   * take the server down. `afterSave` shows the problems even when unchanged:
   * the author saved and looks at the log.
   */
  const rebuild = (afterSave = false): Promise<CustomizationBuildResult | undefined> => {
    latest = requireBuilder()
      .build()
      .then(
        (result) => {
          logProblems(result, afterSave);
          return result;
        },
        (error: unknown) => {
          logger?.error(`[platform-kit] could not build the customization: ${error instanceof Error ? error.message : String(error)}`, {
            timestamp: true,
          });
          return undefined;
        },
      );
    return latest;
  };

  const logProblems = (result: CustomizationBuildResult, afterSave: boolean): void => {
    const warnings = result.warnings.map(formatProblem).join('\n');
    if (warnings !== '' && (afterSave || warnings !== shownWarnings)) logger?.warn(`[platform-kit] warnings in the customization files:\n${warnings}`, { timestamp: true });
    shownWarnings = warnings;
    const text = result.problems.map(formatProblem).join('\n');
    if (text !== '' && (afterSave || text !== shownProblems)) {
      logger?.warn(`[platform-kit] problems in the customization files (the last good version of each is used):\n${text}`, {
        timestamp: true,
      });
    } else if (text === '' && shownProblems !== '') {
      logger?.info('[platform-kit] every customization file is valid again', { timestamp: true });
    }
    shownProblems = text;
  };

  const currentModuleSource = async (): Promise<string | undefined> => (await (latest ?? rebuild()))?.moduleSource;

  const hotUpdate = async (server: ViteDevServer): Promise<void> => {
    const before = latest ? (await latest)?.moduleSource : undefined;
    const result = await rebuild(true);
    if (!result || result.moduleSource === before) return;
    for (const environment of Object.values(server.environments)) {
      const module = environment.moduleGraph.getModuleById(RESOLVED_VIRTUAL_MODULE_ID);
      // Not in this environment's graph: nothing imported it yet, so the next import loads fresh code.
      if (module) await environment.reloadModule(module);
    }
  };

  return {
    name: 'platform-kit',

    configResolved(config) {
      logger = config.logger;
      command = config.command;
      builder = createCustomizationBuilder({
        root: resolve(config.root, options.root ?? '.'),
        ...(options.outDir === undefined ? {} : { outDir: options.outDir }),
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.envTypes === undefined ? {} : { envTypes: options.envTypes }),
      });
    },

    async buildStart() {
      await rebuild();
    },

    configureServer(server) {
      const { customizationDir } = requireBuilder();
      // Write the generated files (and their types) as soon as the server exists, not only when a page asks.
      latest ??= rebuild();
      const isConfigFile = (file: string): boolean => {
        const absolute = resolve(file);
        return absolute === customizationDir || (dirname(absolute) === customizationDir && absolute.endsWith('.json'));
      };
      const reportError = (error: unknown): void => {
        logger?.error(`[platform-kit] hot update failed: ${error instanceof Error ? error.message : String(error)}`, { timestamp: true });
      };
      const scheduleUpdate = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        timer = setTimeout(() => {
          timer = undefined;
          hotUpdate(server).then(scheduleVerify, reportError);
        }, DEFAULT_DEBOUNCE_MS);
        timer.unref();
      };
      // File events can be lost (see VERIFY_DELAY_MS): look once more after each update.
      const scheduleVerify = (): void => {
        if (verifyTimer !== undefined) clearTimeout(verifyTimer);
        verifyTimer = setTimeout(() => {
          verifyTimer = undefined;
          void (async () => {
            const seen = (await latest)?.fingerprints;
            if (!seen || timer !== undefined) return;
            if (fingerprintsDiffer(seen, await fingerprintCustomizationFiles(customizationDir)) && timer === undefined) scheduleUpdate();
          })().catch(reportError);
        }, VERIFY_DELAY_MS);
        verifyTimer.unref();
      };
      // Vite watches its root already; the template root may lie outside it.
      server.watcher.add(customizationDir);
      const onFileEvent = (file: string): void => {
        if (isConfigFile(file)) scheduleUpdate();
      };
      for (const event of ['add', 'change', 'unlink', 'unlinkDir'] as const) server.watcher.on(event, onFileEvent);
      server.httpServer?.once('close', stopTimers);
    },

    resolveId(id) {
      return id === VIRTUAL_MODULE_ID ? RESOLVED_VIRTUAL_MODULE_ID : undefined;
    },

    async load(id) {
      if (id !== RESOLVED_VIRTUAL_MODULE_ID) return undefined;
      const source = await currentModuleSource();
      if (command === 'build') {
        // `vite build --watch` rebuilds when these change; in dev the server watcher above does the work.
        for (const file of (await latest)?.sourceFiles ?? []) this.addWatchFile(file);
      }
      // Without a build (the output could not be written) the template still loads, with no values.
      if (source === undefined) return `// platform-kit: the customization could not be built; see the Vite log\nexport const customization = undefined;\n`;
      // Only what Vite serves accepts hot updates: the file on disk stays plain ES2017 for other bundlers.
      return source + VITE_HOT_ACCEPT;
    },

    transformIndexHtml: {
      order: 'pre',
      handler() {
        if (options.inject === false) return [];
        return [
          {
            tag: 'script',
            attrs: { type: 'module' },
            children: `import '${VIRTUAL_MODULE_ID}';`,
            injectTo: 'head-prepend',
          },
        ];
      },
    },

    closeBundle() {
      stopTimers();
    },
  };
}

export default platformKit;
