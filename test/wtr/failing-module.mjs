// Node-side help for test/browser/dispatch-chunk-failure.test.ts: the session's
// module (guest/dispatch/browser-session.ts) fails to load, as a chunk does on
// a network blip or after a deploy removed it, for a page that carries the
// cookie `platform-kit-fail-module=session`. The answer (503) is held until the
// test says 'fail-session-module-now', so that the test knows the early socket
// joined first. Other pages (the member iframes, another origin) load it as usual.
// Middleware, not a plugin's serve hook: the dev server answers a file it served
// before (to a member iframe) from its cache, before any plugin sees the request.
const SESSION_MODULE = '/guest/dispatch/browser-session.ts';
const COOKIE = 'platform-kit-fail-module';

let release = () => {};
let gate = new Promise((resolve) => (release = resolve));

export const middleware = [
  async function failingSessionModule(ctx, next) {
    if (ctx.path !== SESSION_MODULE || ctx.cookies.get(COOKIE) !== 'session') return next();
    await gate;
    ctx.status = 503;
    ctx.set('cache-control', 'no-store');
    ctx.type = 'text/plain';
    ctx.body = 'the session module is unavailable (test)';
  },
];

export default [
  {
    name: 'platform-kit-failing-module',
    async executeCommand({ command }) {
      if (command !== 'fail-session-module-now') return undefined;
      release();
      gate = new Promise((resolve) => (release = resolve));
      return true;
    },
  },
];
