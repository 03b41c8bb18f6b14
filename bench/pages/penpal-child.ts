// penpal 7's side of the comparison (origin http://127.0.0.1:PORT): the child
// connects to the bench page with WindowMessenger (after its handshake penpal
// also talks over a MessagePort) and times its calls here, in the iframe.
import { connect, WindowMessenger } from 'penpal';
import { PATH, type PenpalChildApi, type PenpalParentApi } from './protocol.js';
import { hostOriginFromQuery, sampleLoop, serveCommands } from './round-trips.js';
import { installTrace, startClock, stopClock, traceRequested } from './trace.js';
import { applyWhatIfFromQuery } from './what-if.js';

if (traceRequested()) installTrace();
applyWhatIfFromQuery();
const hostOrigin = hostOriginFromQuery();
const path = [...PATH];

let arrive: (() => void) | null = null;
let stoppedAt = 0;
const connection = connect<PenpalParentApi>({
  messenger: new WindowMessenger({ remoteWindow: window.parent, allowedOrigins: [hostOrigin] }),
  methods: {
    valueChanged(): void {
      stoppedAt = stopClock();
      arrive?.();
    },
  } satisfies PenpalChildApi,
  timeout: 10_000,
});
const parent = await connection.promise;

serveCommands('penpal', hostOrigin, {
  'penpal-shape': (count) =>
    sampleLoop(count, (i) => {
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const startedAt = startClock();
      const answered = parent.setValue(path, `value ${i}`);
      return arrived.then(async () => {
        const elapsed = stoppedAt - startedAt;
        await answered;
        return elapsed;
      });
    }),
  'penpal-call': (count) =>
    sampleLoop(count, async (i) => {
      const startedAt = startClock();
      await parent.echo(`value ${i}`);
      return stopClock() - startedAt;
    }),
});
