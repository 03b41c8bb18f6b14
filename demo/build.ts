/**
 * The demo's production build (`npm run build`, after the kit's own): the
 * host pages and every template, with their generated customization modules
 * and Lit's production build, bundled and minified by Vite into
 * `demo/dist/` (git-ignored). `npm run start:prod` serves it through the same
 * demo server (demo/server.ts), with the same API, signaling routes and vault
 * backend.
 *
 *   node --import tsx demo/build.ts [outDir]
 */
import { copyFile, readdir } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';
import { buildTemplateCustomizations } from './server.js';
import { DEMO_TEMPLATES } from './catalog.js';
import { buildInputs, DEFAULT_DIST_DIR, DEMO_DIR, demoViteConfig } from './vite-config.js';

/** Files a template names only in its values (`card.photo`: `/templates/greeting/balloons.svg`), which no bundler sees: copied as they are. */
const STATIC_EXTENSIONS = new Set(['.svg', '.png', '.jpg', '.jpeg', '.webp', '.gif', '.wav', '.mp3', '.ogg']);

/** Options of {@link buildDemo}. */
export interface BuildDemoOptions {
  /** Where to write the built demo. Default `demo/dist`. */
  readonly outDir?: string;
  readonly logLevel?: 'info' | 'warn' | 'error' | 'silent';
}

/** Builds the demo into `outDir`; returns it. */
export async function buildDemo(options: BuildDemoOptions = {}): Promise<string> {
  const outDir = resolve(options.outDir ?? DEFAULT_DIST_DIR);
  await buildTemplateCustomizations();
  const config = demoViteConfig({ logLevel: options.logLevel ?? 'warn' });
  await build({
    ...config,
    mode: 'production',
    build: {
      outDir,
      emptyOutDir: true,
      // Top-level await (the feed and editor pages) and private fields as written.
      target: 'es2022',
      // Hashed names under assets/: the server sends them as immutable, so a warm visit asks nothing again.
      assetsDir: 'assets',
      rollupOptions: { input: buildInputs() },
    },
  });
  for (const template of DEMO_TEMPLATES) {
    const folder = join(DEMO_DIR, 'templates', template.id);
    for (const file of await readdir(folder)) {
      if (STATIC_EXTENSIONS.has(extname(file).toLowerCase())) await copyFile(join(folder, file), join(outDir, 'templates', template.id, file));
    }
  }
  return outDir;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  const outDir = await buildDemo({ ...(process.argv[2] ? { outDir: process.argv[2] } : {}), logLevel: 'warn' });
  console.log(`platform-kit demo: built into ${outDir} in ${((performance.now() - started) / 1000).toFixed(1)} s (npm run start:prod serves it)`);
}
