// `npm start`: the whole demo on one port (see server.ts): the signaling server with
// its services, the templates on a second origin, the feed, the editor and the dashboard.
// `npm run start:prod` (`--prod`): the same, serving the production build of `npm run build`.
import { isPlatformError } from '../signaling/index.js';
import { startDemo, type DemoServer } from './server.js';
import { DEFAULT_DIST_DIR } from './vite-config.js';

const prod = process.argv.includes('--prod');
let demo: DemoServer;
try {
  demo = await startDemo(prod ? { distDir: DEFAULT_DIST_DIR } : {});
} catch (error) {
  if (isPlatformError(error) && (error.code === 'NOT_FOUND' || error.code === 'INVALID_CONFIG')) {
    console.error(error.message);
    process.exit(1);
  }
  // The usual first-run failure gets one line that says what to do, not a stack.
  const { code, port, address } = error as { code?: string; port?: number; address?: string };
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    const reason = code === 'EADDRINUSE' ? 'is in use' : code === 'EACCES' ? 'needs privileges' : 'is not an address of this machine';
    console.error(`platform-kit demo: ${address ?? ''}:${port ?? ''} ${reason}. Choose another: PORT=5174 npm start (PORT=0 takes any free port; HOST sets the address).`);
    process.exit(1);
  }
  throw error;
}
const line = (label: string, url: string): string => `  ${label.padEnd(24)}${url}`;
console.log(
  [
    '',
    `  Platform Kit demo${demo.mode === 'prod' ? ' (production build)' : ''}`,
    '',
    line('feed', `${demo.url}/`),
    line('editor (greeting card)', `${demo.url}/editor.html?template=greeting`),
    line('shard dashboard', `${demo.url}/dashboard.html`),
    line('templates (2nd origin)', `${demo.templateOrigin}/templates/greeting/`),
    line('signaling', `ws://127.0.0.1:${demo.port}/dispatch (inside: ${demo.signaling.url})`),
    '',
    line('project', `${demo.project.id}   token: ${demo.project.token}   admin key: ${demo.adminKey}   (development values)`),
    line('data', demo.dataDir),
    '',
  ].join('\n'),
);

// Ctrl-C stops it: open tabs' connections are cut, and if closing still takes more than
// 3 s (or Ctrl-C comes again) the process exits anyway.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(130);
    stopping = true;
    console.log('\n  stopping…');
    setTimeout(() => process.exit(0), 3_000).unref();
    void demo.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('platform-kit demo: closing failed', error);
        process.exit(1);
      },
    );
  });
}
