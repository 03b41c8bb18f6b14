/**
 * The two Vite servers of `platform-kit dev`, both in middleware mode on the workbench's port:
 *
 * - the template's: the author's own vite.config (with the kit's plugin), HMR on the shared
 *   port, and one dev-only addition: the probe (probe-script.ts) prepended to its pages, which
 *   reports what only the template's page can see (long tasks, text under the feed's insets);
 * - the workbench's: no config file, no HMR, rooted in the template's folder so that its
 *   `platform-kit/host` is the template project's installed kit, pre-bundled once.
 */
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, defaultClientConditions, type Plugin, type ViteDevServer } from 'vite';
import { PlatformError } from '../../protocol/errors.js';
import type { CustomizationBuildResult } from '../build-customization.js';
import { PLATFORM_KIT_PLUGIN_NAME, type PlatformKitPluginApi } from '../vite-plugin.js';
import { PROBE_SCRIPT } from './probe-script.js';

/** The workbench's two Vite servers. */
export interface ViteServers {
  readonly template: ViteDevServer;
  readonly workbench: ViteDevServer;
}

/** This folder (dist/cli/dev, or cli/dev when run from the sources) and the file extension of its modules. */
const HERE = fileURLToPath(new URL('.', import.meta.url));
const EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
/** The kit's package folder (dist's parent, or the repository when run from the sources). */
const KIT_ROOT = join(HERE, EXTENSION === '.ts' ? '../..' : '../../..');

/** The workbench page's module, as Vite serves a file outside its root. */
export function workbenchEntry(): string {
  return `/@fs${join(HERE, 'workbench', `main${EXTENSION}`)}`;
}

/** The template's Vite: the author's config and HMR on `httpServer`, plus the probe. */
export async function startTemplateVite(options: {
  readonly root: string;
  readonly httpServer: Server;
  readonly logLevel: 'info' | 'warn' | 'error' | 'silent';
  readonly probeOrigin: string;
  readonly onBuild: (result: CustomizationBuildResult) => void;
}): Promise<ViteDevServer> {
  const server = await createServer({
    root: options.root,
    logLevel: options.logLevel,
    clearScreen: false,
    server: { middlewareMode: true, hmr: { server: options.httpServer } },
    plugins: [probePlugin()],
  });
  const kit = server.config.plugins.find((plugin) => plugin.name === PLATFORM_KIT_PLUGIN_NAME) as Plugin<PlatformKitPluginApi> | undefined;
  if (!kit?.api) {
    await server.close();
    throw new PlatformError(
      'INVALID_CONFIG',
      `${options.root} has no Vite config with the kit's plugin: add plugins: [platformKit()] (import { platformKit } from 'platform-kit/vite') to vite.config, or start from npx platform-kit create`,
    );
  }
  kit.api.onBuild(options.onBuild);
  return server;
}

/** The probe's URL on the template's origin (dev-api.ts serves it). */
const PROBE_URL = '/__platform/probe.js';

/** Prepends the dev probe to every page of the template (dev only: a build never has it). */
function probePlugin(): Plugin {
  return {
    name: 'platform-kit:dev-probe',
    apply: 'serve',
    // Vite pre-transforms the scripts a page names: without these it looks for the probe on disk
    // and logs "Pre-transform error: Failed to load url /__platform/probe.js" for every page.
    resolveId: (id) => (id === PROBE_URL ? PROBE_URL : undefined),
    load: (id) => (id === PROBE_URL ? PROBE_SCRIPT : undefined),
    transformIndexHtml: {
      order: 'pre',
      handler: () => [{ tag: 'script', attrs: { type: 'module', src: PROBE_URL }, injectTo: 'head-prepend' }],
    },
  };
}

/** The workbench's Vite: the kit's host elements from the template project's node_modules. */
export async function startWorkbenchVite(options: { readonly root: string; readonly logLevel: 'info' | 'warn' | 'error' | 'silent' }): Promise<ViteDevServer> {
  return createServer({
    configFile: false,
    root: options.root,
    appType: 'custom',
    logLevel: options.logLevel === 'info' ? 'warn' : options.logLevel,
    clearScreen: false,
    // Apart from the template's: the two optimize different dependencies.
    cacheDir: join(options.root, 'node_modules/.vite-platform-workbench'),
    resolve: {
      // Lit's production build, as a deployed host runs it (the demo does the same).
      conditions: defaultClientConditions.map((condition) => (condition === 'development|production' ? 'production' : condition)),
    },
    server: { middlewareMode: true, hmr: false, ws: false, fs: { allow: [options.root, KIT_ROOT] } },
    // One pre-bundled module for the whole host: the page's first load is one request, not Lit's hundred.
    optimizeDeps: { entries: [], include: ['platform-kit/host'] },
  });
}
