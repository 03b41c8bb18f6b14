/**
 * The demo's Vite configuration, one for both ways the demo runs: the dev
 * server (`npm start`, Vite in middleware mode inside demo/server.ts) and the
 * production build (`npm run build`, demo/build.ts, served statically by the
 * same server with `npm run start:prod`). What differs between them is only
 * what each mode needs (the dev server's HMR socket, the build's inputs).
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, type InlineConfig } from 'vite';
import { platformKit } from '../cli/vite-plugin.js';
import { DEMO_PROJECT_ID, DEMO_TEMPLATES } from './catalog.js';

export const DEMO_DIR = fileURLToPath(new URL('.', import.meta.url));
export const REPO_ROOT = resolve(DEMO_DIR, '..');
/** Where `npm run build` writes the built demo (git-ignored). */
export const DEFAULT_DIST_DIR = join(DEMO_DIR, 'dist');
/** The host pages: every `.html` at the demo's root. */
export const HOST_PAGES = ['index.html', 'editor.html', 'dashboard.html', 'plain.html'] as const;

/** What a deployed template reads from its environment: the project id fills metadata.projectId. */
export function templateEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PLATFORM_PROJECT_ID: DEMO_PROJECT_ID };
}

/** Shared by dev and build: root, aliases to the kit's sources, Lit's production build, one customization plugin per template. */
export function demoViteConfig(options: { readonly logLevel?: InlineConfig['logLevel'] } = {}): InlineConfig {
  const env = templateEnv();
  return {
    configFile: false,
    root: DEMO_DIR,
    appType: 'mpa',
    logLevel: options.logLevel ?? 'info',
    clearScreen: false,
    resolve: {
      // Lit's production build, as a deployed host runs it: no dev-mode warning in every page,
      // and the speed users get. (Vite's dev server would pick the 'development' export condition.)
      conditions: defaultClientConditions.map((condition) => (condition === 'development|production' ? 'production' : condition)),
      // The demo runs the kit from its sources, so a change to the kit shows without a build.
      alias: {
        // Before 'platform-kit/guest', which would also match it as a prefix.
        'platform-kit/guest/state': join(REPO_ROOT, 'guest/state/index.ts'),
        'platform-kit/guest': join(REPO_ROOT, 'guest/index.ts'),
        // Before 'platform-kit/host', which would also match it as a prefix.
        'platform-kit/host/core': join(REPO_ROOT, 'host/core.ts'),
        'platform-kit/host': join(REPO_ROOT, 'host/index.ts'),
      },
    },
    // One plugin per template root: each writes its template's generated module, which the template imports itself.
    plugins: DEMO_TEMPLATES.map((template) => platformKit({ root: `templates/${template.id}`, inject: false, env, envTypes: false })),
  };
}

/** The build's inputs: every host page and every template's page. */
export function buildInputs(): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const page of HOST_PAGES) inputs[page.replace(/\.html$/, '')] = join(DEMO_DIR, page);
  for (const template of DEMO_TEMPLATES) inputs[`templates/${template.id}`] = join(DEMO_DIR, 'templates', template.id, 'index.html');
  return inputs;
}
