// The template of the editor keystroke benchmark (origin http://127.0.0.1:PORT).
// ?mode=editor: reports each onValueChanged, timestamped here, over a raw port
// to the bench page. ?mode=link: runs the foundation's link round trip
// (onSetValue → host → onValueChanged, timed here) when asked.
import { defineCustomization, InstantRemixing } from '../../guest/index.js';

const params = new URLSearchParams(location.search);
const hostOrigin = params.get('host') ?? '';
const mode = params.get('mode') ?? 'editor';

defineCustomization({
  version: 1,
  values: { card: { title: '', other: '' } },
  editor: [
    {
      key: 'card',
      name: 'Card',
      fields: [
        { key: 'title', name: 'Title', type: 'text' },
        { key: 'other', name: 'Other', type: 'text' },
      ],
    },
  ],
});

const remix = new InstantRemixing();
let port: MessagePort | null = null;
let arrive: ((at: number) => void) | null = null;
const title = document.getElementById('title') as HTMLElement;
remix.onValueChanged((path, value) => {
  // The stop watch: the first thing the template's listener does.
  const at = performance.now();
  if (mode === 'editor') port?.postMessage({ arrived: value, at });
  else arrive?.(at);
  if (path[1] === 'title') title.textContent = String(value);
});

async function linkRoundTrips(count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const arrived = new Promise<number>((resolve) => (arrive = resolve));
    const startedAt = performance.now();
    const ack = remix.onSetValue(['card', 'other'], `value ${i}`);
    samples.push((await arrived) - startedAt);
    await ack;
  }
  return samples;
}

window.addEventListener('message', (event: MessageEvent) => {
  if (event.origin !== hostOrigin || event.source !== window.parent) return;
  const data = event.data as { benchPort?: boolean } | null;
  if (data?.benchPort !== true || !event.ports[0]) return;
  port = event.ports[0];
  port.onmessage = (message: MessageEvent) => {
    const request = message.data as { ping?: number; runLink?: number };
    if (typeof request.ping === 'number') port?.postMessage({ pong: request.ping, at: performance.now() });
    if (typeof request.runLink === 'number') void linkRoundTrips(request.runLink).then((samples) => port?.postMessage({ linkSamples: samples }));
  };
  port.postMessage({ hello: mode });
});
void remix.ready();
