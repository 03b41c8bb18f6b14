// The template of the link round-trip benchmark (origin http://127.0.0.1:PORT):
// the real guest SDK from source, a small customization, and the timing loop
// of the 'ours' scenarios. Timestamps are taken here, in the guest.
import { defineCustomization, InstantRemixing } from '../../guest/index.js';
import { PATH } from './protocol.js';
import { hostOriginFromQuery, sampleLoop, serveCommands } from './round-trips.js';
import { installTrace, startClock, stopClock, traceRequested } from './trace.js';
import { applyWhatIfFromQuery } from './what-if.js';

if (traceRequested()) installTrace();
applyWhatIfFromQuery();
const hostOrigin = hostOriginFromQuery();

defineCustomization({
  version: 1,
  values: {
    card: { title: 'Hello', color: '#ff0000', size: 10 },
  },
  editor: [
    {
      key: 'card',
      name: 'Card',
      fields: [
        { key: 'title', name: 'Title', type: 'text' },
        { key: 'color', name: 'Color', type: 'color' },
        { key: 'size', name: 'Size', type: 'range', typeOptions: { min: 0, max: 100, step: 1 } },
      ],
    },
  ],
});

const remix = new InstantRemixing();
let arrive: (() => void) | null = null;
let stoppedAt = 0;
remix.onValueChanged(() => {
  // The stop watch: the first thing the template's listener does.
  stoppedAt = stopClock();
  arrive?.();
});
const remixing = new Promise<void>((resolve) => remix.onSetRemixing(() => resolve()));
const path = [...PATH];

/** onSetValue → host → onValueChanged. The ack of onSetValue settles after the stop, outside the timing, before the next one. */
function echoRoundTrip(i: number): Promise<number> {
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const startedAt = startClock();
  const ack = remix.onSetValue(path, `value ${i}`);
  return arrived.then(async () => {
    const elapsed = stoppedAt - startedAt;
    await ack;
    return elapsed;
  });
}

/** One call and its answer: skipUpdate, so the host sends no echo. */
async function ackRoundTrip(i: number): Promise<number> {
  const startedAt = startClock();
  await remix.onSetValue(path, `value ${i}`, true);
  return stopClock() - startedAt;
}

await remix.ready();
// The first notification after ready(): the host has linked us, synced and flushed its queue.
await remixing;
serveCommands('template', hostOrigin, {
  ours: (count) => sampleLoop(count, echoRoundTrip),
  'ours-ack': (count) => sampleLoop(count, ackRoundTrip),
});
