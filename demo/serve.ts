// `npm start`: serves the demo with Vite on one port. Host pages are on
// http://localhost:PORT, templates on http://127.0.0.1:PORT: two origins,
// so the host ↔ guest boundary is as real as in production.
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import { platformKit } from '../cli/vite-plugin.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const port = Number(process.env['PORT'] ?? 5173);

const server = await createServer({
  configFile: false,
  root: fileURLToPath(new URL('.', import.meta.url)),
  server: { host: '127.0.0.1', port, strictPort: false },
  resolve: {
    // The demo runs the kit from its sources, so a change to the kit shows without a build.
    alias: {
      'platform-kit/guest': `${repoRoot}guest/index.ts`,
      'platform-kit/host': `${repoRoot}host/index.ts`,
    },
  },
  plugins: [platformKit({ root: 'templates/greeting', inject: false })],
});
await server.listen();
const address = server.httpServer?.address();
const actualPort = typeof address === 'object' && address ? address.port : port;
console.log(`\n  Platform Kit demo\n`);
console.log(`  host page (editor):  http://localhost:${actualPort}/`);
console.log(`  template (guest):    http://127.0.0.1:${actualPort}/templates/greeting/\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
