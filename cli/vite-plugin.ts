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
import type { HtmlTagDescriptor, Logger, Plugin, ResolvedConfig, ViteDevServer } from 'vite';
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

/**
 * What the plugin offers other plugins and tools (`plugin.api`): `platform-kit dev` hears every
 * build through it, to show a customization's problems in the browser.
 */
export interface PlatformKitPluginApi {
  /** Calls `listener` after every build (a problem-free one too); returns the remover. */
  onBuild(listener: (result: CustomizationBuildResult) => void): () => void;
}

/** The plugin's name, by which a tool finds it among Vite's resolved plugins. */
export const PLATFORM_KIT_PLUGIN_NAME = 'platform-kit';

/** Creates the Platform Kit Vite plugin. */
export function platformKit(options: PlatformKitPluginOptions = {}): Plugin<PlatformKitPluginApi> {
  const state = new CustomizationPluginState(options);
  return {
    name: PLATFORM_KIT_PLUGIN_NAME,
    api: { onBuild: (listener) => state.onBuild(listener) },
    configResolved: (config) => state.configResolved(config),
    buildStart: async () => {
      await state.rebuild();
    },
    configureServer: (server) => state.watch(server),
    resolveId: (id) => (id === VIRTUAL_MODULE_ID ? RESOLVED_VIRTUAL_MODULE_ID : undefined),
    async load(id) {
      if (id !== RESOLVED_VIRTUAL_MODULE_ID) return undefined;
      return state.virtualModule((file) => this.addWatchFile(file));
    },
    transformIndexHtml: {
      order: 'pre',
      handler: () => injectedTags(options),
    },
    closeBundle: () => state.stopTimers(),
  };
}

/** The page's `<script type="module">import 'virtual:platform-kit/customization'</script>`, unless `inject: false`. */
function injectedTags(options: PlatformKitPluginOptions): HtmlTagDescriptor[] {
  if (options.inject === false) return [];
  return [
    {
      tag: 'script',
      attrs: { type: 'module' },
      children: `import '${VIRTUAL_MODULE_ID}';`,
      injectTo: 'head-prepend',
    },
  ];
}

/**
 * What one plugin instance holds across Vite's hooks: the builder (once Vite
 * resolved its config), the latest build, what was last logged, and the dev
 * server's debounce and verify timers.
 */
class CustomizationPluginState {
  #builder: CustomizationBuilder | undefined;
  #logger: Logger | undefined;
  #command: ResolvedConfig['command'] = 'serve';
  #latest: Promise<CustomizationBuildResult | undefined> | undefined;
  /** The problems last shown, so that buildStart of each environment does not show them again. */
  #shownProblems = '';
  /** The warnings last shown (unknown type names…), likewise. */
  #shownWarnings = '';
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #buildListeners = new Set<(result: CustomizationBuildResult) => void>();
  #verifyTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly options: PlatformKitPluginOptions) {}

  /** `configResolved`: the logger, the command and the builder for the template root. */
  configResolved(config: ResolvedConfig): void {
    this.#logger = config.logger;
    this.#command = config.command;
    this.#builder = createCustomizationBuilder({
      root: resolve(config.root, this.options.root ?? '.'),
      ...(this.options.outDir === undefined ? {} : { outDir: this.options.outDir }),
      ...(this.options.env === undefined ? {} : { env: this.options.env }),
      ...(this.options.envTypes === undefined ? {} : { envTypes: this.options.envTypes }),
    });
  }

  onBuild(listener: (result: CustomizationBuildResult) => void): () => void {
    this.#buildListeners.add(listener);
    return () => this.#buildListeners.delete(listener);
  }

  stopTimers(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#verifyTimer !== undefined) clearTimeout(this.#verifyTimer);
    this.#timer = this.#verifyTimer = undefined;
  }

  #requireBuilder(): CustomizationBuilder {
    if (!this.#builder) throw new Error('platform-kit: the Vite plugin was used before Vite resolved its config');
    return this.#builder;
  }

  /**
   * Builds and logs; never rejects, so a broken file or a failed write cannot
   * take the server down. `afterSave` shows the problems even when unchanged:
   * the author saved and looks at the log.
   */
  rebuild(afterSave = false): Promise<CustomizationBuildResult | undefined> {
    this.#latest = this.#requireBuilder()
      .build()
      .then(
        (result) => {
          this.#logProblems(result, afterSave);
          for (const listener of this.#buildListeners) listener(result);
          return result;
        },
        (error: unknown) => {
          this.#logger?.error(`[platform-kit] could not build the customization: ${error instanceof Error ? error.message : String(error)}`, {
            timestamp: true,
          });
          return undefined;
        },
      );
    return this.#latest;
  }

  #logProblems(result: CustomizationBuildResult, afterSave: boolean): void {
    const warnings = result.warnings.map(formatProblem).join('\n');
    if (warnings !== '' && (afterSave || warnings !== this.#shownWarnings))
      this.#logger?.warn(`[platform-kit] warnings in the customization files:\n${warnings}`, { timestamp: true });
    this.#shownWarnings = warnings;
    const text = result.problems.map(formatProblem).join('\n');
    if (text !== '' && (afterSave || text !== this.#shownProblems)) {
      this.#logger?.warn(`[platform-kit] problems in the customization files (the last good version of each is used):\n${text}`, {
        timestamp: true,
      });
    } else if (text === '' && this.#shownProblems !== '') {
      this.#logger?.info('[platform-kit] every customization file is valid again', { timestamp: true });
    }
    this.#shownProblems = text;
  }

  /** `load` of the virtual module: the built module, hot-accepting; `addWatchFile` is the plugin context's. */
  async virtualModule(addWatchFile: (file: string) => void): Promise<string> {
    const source = (await (this.#latest ?? this.rebuild()))?.moduleSource;
    if (this.#command === 'build') {
      // `vite build --watch` rebuilds when these change; in dev the server watcher above does the work.
      for (const file of (await this.#latest)?.sourceFiles ?? []) addWatchFile(file);
    }
    // Without a build (the output could not be written) the template still loads, with no values.
    if (source === undefined) return `// platform-kit: the customization could not be built; see the Vite log\nexport const customization = undefined;\n`;
    // Only what Vite serves accepts hot updates: the file on disk stays plain ES2017 for other bundlers.
    return source + VITE_HOT_ACCEPT;
  }

  /** `configureServer`: builds at once, then rebuilds and hot-updates when a customization file changes. */
  watch(server: ViteDevServer): void {
    const { customizationDir } = this.#requireBuilder();
    // Write the generated files (and their types) as soon as the server exists, not only when a page asks.
    this.#latest ??= this.rebuild();
    // Vite watches its root already; the template root may lie outside it.
    server.watcher.add(customizationDir);
    const onFileEvent = (file: string): void => {
      const absolute = resolve(file);
      if (absolute === customizationDir || (dirname(absolute) === customizationDir && absolute.endsWith('.json'))) this.#scheduleUpdate(server, customizationDir);
    };
    for (const event of ['add', 'change', 'unlink', 'unlinkDir'] as const) server.watcher.on(event, onFileEvent);
    server.httpServer?.once('close', () => this.stopTimers());
  }

  #reportError(error: unknown): void {
    this.#logger?.error(`[platform-kit] hot update failed: ${error instanceof Error ? error.message : String(error)}`, { timestamp: true });
  }

  #scheduleUpdate(server: ViteDevServer, customizationDir: string): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#hotUpdate(server).then(
        () => this.#scheduleVerify(server, customizationDir),
        (error: unknown) => this.#reportError(error),
      );
    }, DEFAULT_DEBOUNCE_MS);
    this.#timer.unref();
  }

  /** File events can be lost (see VERIFY_DELAY_MS): look once more after each update. */
  #scheduleVerify(server: ViteDevServer, customizationDir: string): void {
    if (this.#verifyTimer !== undefined) clearTimeout(this.#verifyTimer);
    this.#verifyTimer = setTimeout(() => {
      this.#verifyTimer = undefined;
      void (async () => {
        const seen = (await this.#latest)?.fingerprints;
        if (!seen || this.#timer !== undefined) return;
        if (fingerprintsDiffer(seen, await fingerprintCustomizationFiles(customizationDir)) && this.#timer === undefined) this.#scheduleUpdate(server, customizationDir);
      })().catch((error: unknown) => this.#reportError(error));
    }, VERIFY_DELAY_MS);
    this.#verifyTimer.unref();
  }

  /** Rebuilds and, when the module changed, reloads it in every environment that loaded it. */
  async #hotUpdate(server: ViteDevServer): Promise<void> {
    const before = this.#latest ? (await this.#latest)?.moduleSource : undefined;
    const result = await this.rebuild(true);
    if (!result || result.moduleSource === before) return;
    for (const environment of Object.values(server.environments)) {
      const module = environment.moduleGraph.getModuleById(RESOLVED_VIRTUAL_MODULE_ID);
      // Not in this environment's graph: nothing imported it yet, so the next import loads fresh code.
      if (module) await environment.reloadModule(module);
    }
  }
}

export default platformKit;
