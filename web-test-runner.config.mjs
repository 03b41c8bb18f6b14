// Browser tests: real Debian Chromium (TESTING.md), TypeScript through esbuild.
// The test page runs on http://localhost:PORT; fixtures load from
// http://127.0.0.1:PORT, a second origin, so every iframe boundary is real.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { readdirSync } from 'node:fs';
import { CHROMIUM_FLAGS, chromiumPath } from './test/chromium.mjs';

// Each suite that needs a server or a command in Node adds a module to
// test/wtr/ that default-exports a list of plugins, and may export `middleware`
// (Koa middleware, run before the dev server's cache answers a file it served
// before); they are all loaded here.
const suitePlugins = [];
const suiteMiddleware = [];
for (const file of readdirSync(new URL('./test/wtr/', import.meta.url))
  .filter((name) => name.endsWith('.mjs'))
  .sort()) {
  const module = await import(new URL(`./test/wtr/${file}`, import.meta.url).href);
  suitePlugins.push(...module.default);
  suiteMiddleware.push(...(module.middleware ?? []));
}

const executablePath = chromiumPath;

export default {
  files: ['test/browser/**/*.test.ts'],
  nodeResolve: true,
  hostname: 'localhost',
  concurrency: 1,
  // Lit announces its development build in every page; the tests run it on purpose (more checks), so the line is noise.
  filterBrowserLogs: ({ args }) => !(typeof args[0] === 'string' && args[0].startsWith('Lit is in dev mode')),
  // No retries by default: a test passes the first time. The suites whose timing depends on real
  // input streams or WebRTC on a loaded 2-core machine (feed-*, dispatch-*) opt in with
  // this.retries(2) and say why.
  testFramework: { config: { timeout: 20000 } },
  browserStartTimeout: 60000,
  testsStartTimeout: 60000,
  testsFinishTimeout: 300000,
  middleware: suiteMiddleware,
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' }), ...suitePlugins],
  browsers: [
    playwrightLauncher({
      product: 'chromium',
      launchOptions: { executablePath, headless: true, args: CHROMIUM_FLAGS },
    }),
  ],
};
