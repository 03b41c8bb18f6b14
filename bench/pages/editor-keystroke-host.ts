// The editor keystroke bench page (http://localhost:PORT/bench/editor-keystroke.html).
// A real <platform-editor> with the text control of card.title open; Node
// presses keys through playwright. For each keystroke the page takes the
// keydown's time, the template takes the time its onValueChanged runs, and
// a clock offset between the two (NTP style over a raw MessageChannel, the
// least-delayed of many pings) puts both on one timeline. Also measured here:
// the raw MessageChannel round trip to the same template, and the
// foundation's link round trip (onSetValue → RemixSession → onValueChanged)
// with a second template and a bare RemixSession.
import { defineHostElements, RemixSession, TemplateFrame, type PlatformEditor } from '../../host/index.js';
import { BENCH_CALL_LIMITS } from './round-trips.js';

export interface KeystrokeSample {
  /** keydown event.timeStamp → the template's onValueChanged, ms. */
  readonly fromEvent: number;
  /** keydown listener (first JS in the page) → the template's onValueChanged, ms. */
  readonly fromHandler: number;
  /**
   * input event (the text is in the field; the editor's own work starts) →
   * the template's onValueChanged, ms. Chromium delivers a key as two
   * browser → page messages (raw key down, then the character), so keydown →
   * input is the browser's share, outside the editor's reach.
   */
  readonly fromInput: number;
}

export interface EditorBenchApi {
  /** Clock offset template − page, ms, and the round trip of the ping it came from. */
  readonly offset: { readonly ms: number; readonly rttMs: number };
  /** Waits for the template to report `value` and times it against the last keydown. */
  awaitValue(value: string): Promise<KeystrokeSample>;
  /** Sets the text through the session (not timed): used to clear it. */
  reset(value: string): Promise<void>;
  /** `count` raw MessageChannel round trips to the editor's template, ms. */
  raw(count: number): Promise<number[]>;
  /** `count` link round trips timed in the link template, ms. */
  link(count: number): Promise<number[]>;
  /** Focuses the text control's input. */
  focusInput(): Promise<void>;
}

declare global {
  interface Window {
    __editorBench?: Promise<EditorBenchApi>;
  }
}

const templateOrigin = `http://127.0.0.1:${location.port}`;
const PATH = ['card', 'title'];

function templateUrl(mode: 'editor' | 'link'): string {
  const url = new URL('/bench/pages/editor-keystroke-template.html', templateOrigin);
  url.searchParams.set('host', location.origin);
  url.searchParams.set('mode', mode);
  return url.toString();
}

async function handPort(frame: Window, expected: string): Promise<MessagePort> {
  const channel = new MessageChannel();
  const hello = new Promise<void>((resolve) => {
    channel.port1.onmessage = (event: MessageEvent) => {
      if ((event.data as { hello?: string }).hello === expected) resolve();
    };
  });
  // Retried: the template may not listen yet.
  const timer = setInterval(() => undefined, 1000);
  frame.postMessage({ benchPort: true }, templateOrigin, [channel.port2]);
  await hello;
  clearInterval(timer);
  return channel.port1;
}

async function setUp(): Promise<EditorBenchApi> {
  defineHostElements();
  const editor: PlatformEditor = document.createElement('platform-editor');
  editor.src = templateUrl('editor');
  editor.type = 'instant';
  // Drafts on, as in real use: the save runs on the page's thread too.
  editor.projectId = 'bench';
  editor.remixId = `keystroke-${Date.now()}`;
  editor.style.height = '100vh';
  document.body.append(editor);
  await editor.whenReady();
  await new Promise<void>((resolve) => {
    const check = (): void => (editor.frame?.state === 'ready' ? resolve() : void setTimeout(check, 10));
    check();
  });

  // Thousands of calls a second, past a guest's default allowance: see BENCH_CALL_LIMITS.
  const linkFrame = new TemplateFrame({ src: templateUrl('link'), container: document.body, title: 'link template', ...BENCH_CALL_LIMITS });
  linkFrame.iframe.style.cssText = 'position: absolute; width: 10px; height: 10px; left: -20px';
  new RemixSession().attach(linkFrame);
  await linkFrame.whenLinked();

  const port = await handPort(editor.frame?.iframe.contentWindow as Window, 'editor');
  const linkPort = await handPort(linkFrame.iframe.contentWindow as Window, 'link');

  // Everything the editor's template sends on the raw port.
  const arrivals = new Map<string, number>();
  const arrivalWaiters = new Map<string, (at: number) => void>();
  let pong: ((at: number) => void) | null = null;
  port.onmessage = (event: MessageEvent) => {
    const data = event.data as { arrived?: unknown; at: number; pong?: number };
    if (typeof data.pong === 'number') pong?.(data.at);
    if (typeof data.arrived === 'string') {
      const waiter = arrivalWaiters.get(data.arrived);
      if (waiter) {
        arrivalWaiters.delete(data.arrived);
        waiter(data.at);
      } else arrivals.set(data.arrived, data.at);
    }
  };
  const ping = (): Promise<{ sent: number; at: number; back: number }> =>
    new Promise((resolve) => {
      const sent = performance.now();
      pong = (at) => resolve({ sent, at, back: performance.now() });
      port.postMessage({ ping: 1 });
    });

  let best = { ms: 0, rttMs: Number.POSITIVE_INFINITY };
  for (let i = 0; i < 300; i++) {
    const { sent, at, back } = await ping();
    const rtt = back - sent;
    // The ping least delayed bounds the offset best: its error is at most half its round trip.
    if (rtt < best.rttMs) best = { ms: at - (sent + back) / 2, rttMs: rtt };
  }
  const offset = best;

  let keydown = { timeStamp: 0, handler: 0, input: 0 };
  window.addEventListener('keydown', (event) => (keydown = { timeStamp: event.timeStamp, handler: performance.now(), input: 0 }), { capture: true });
  window.addEventListener('input', () => (keydown.input = performance.now()), { capture: true });

  const input = async (): Promise<HTMLInputElement> => {
    const control = editor.shadowRoot?.querySelector('.overlay [data-kind="text"]') as (HTMLElement & { updateComplete: Promise<boolean> }) | null;
    if (!control) throw new Error('bench: the text control is not open');
    await control.updateComplete;
    return control.shadowRoot?.querySelector('input') as HTMLInputElement;
  };
  editor.openControl(PATH, { x: 20, y: 20 });
  await new Promise((resolve) => setTimeout(resolve, 100));

  const waitArrival = (value: string): Promise<number> => {
    const already = arrivals.get(value);
    if (already !== undefined) {
      arrivals.delete(value);
      return Promise.resolve(already);
    }
    return new Promise((resolve) => arrivalWaiters.set(value, resolve));
  };

  return {
    offset,
    async awaitValue(value) {
      const at = (await waitArrival(value)) - offset.ms;
      return { fromEvent: at - keydown.timeStamp, fromHandler: at - keydown.handler, fromInput: at - keydown.input };
    },
    async reset(value) {
      const arrived = waitArrival(value);
      editor.session?.setValue(PATH, value);
      await arrived;
      await editor.updateComplete;
    },
    async raw(count) {
      const samples: number[] = [];
      for (let i = 0; i < count; i++) {
        const { sent, back } = await ping();
        samples.push(back - sent);
      }
      return samples;
    },
    link(count) {
      return new Promise((resolve) => {
        linkPort.onmessage = (event: MessageEvent) => {
          const data = event.data as { linkSamples?: number[] };
          if (data.linkSamples) resolve(data.linkSamples);
        };
        linkPort.postMessage({ runLink: count });
      });
    },
    async focusInput() {
      (await input()).focus();
    },
  };
}

window.__editorBench = setUp();
