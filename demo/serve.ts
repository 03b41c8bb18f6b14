// `npm start`: the whole demo on one port (see server.ts): the signaling server with
// its services, the templates on a second origin, the feed, the editor and the dashboard.
import { startDemo } from './server.js';

const demo = await startDemo();
const line = (label: string, url: string): string => `  ${label.padEnd(24)}${url}`;
console.log(
  [
    '',
    '  Platform Kit demo',
    '',
    line('feed', `${demo.url}/`),
    line('editor (greeting card)', `${demo.url}/editor.html?template=greeting`),
    line('shard dashboard', `${demo.url}/dashboard.html`),
    line('templates (2nd origin)', `${demo.templateOrigin}/templates/greeting/`),
    line('signaling', `ws://127.0.0.1:${demo.port}/dispatch (inside: ${demo.signaling.url})`),
    '',
    line('project', `${demo.project.id}   token: ${demo.project.token}   (development values)`),
    line('data', demo.dataDir),
    '',
  ].join('\n'),
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void demo.close().then(() => process.exit(0));
  });
}
