import { expect } from '@esm-bundle/chai';
import { resetMouse, sendKeys, sendMouse } from '@web/test-runner-commands';
import { TemplateFrame, type FeedController } from '../../host/index.js';
import { deepFocus, mountEditor, templateUrl, type EditorHarness } from './support/editor.js';
import { mountFeed, type MountedFeed } from './support/feed.js';
import { sleep, TEMPLATE_ORIGIN, waitUntil } from './support/probe.js';

// Issue 23: a template that calls focus() every 10 ms took every key typed into the host page's
// own input. The host keeps the focus where the viewer put it; a template takes it only from a
// gesture aimed at its frame. Real keys (the DevTools Protocol's input, routed by the browser to
// the focused frame), a real cross-origin template that focuses its own input in a loop.

/** Every key the thief template reported, in order (its reports come from the template origin). */
class ThiefKeys {
  readonly keys: string[] = [];
  readonly #listener = (event: MessageEvent): void => {
    if (event.origin !== TEMPLATE_ORIGIN) return;
    const data = event.data as { probe?: string; data?: { key?: string } };
    if (data?.probe === 'key' && typeof data.data?.key === 'string') this.keys.push(data.data.key);
  };
  constructor() {
    window.addEventListener('message', this.#listener);
  }
  dispose(): void {
    window.removeEventListener('message', this.#listener);
  }
}

/** The host page's own input, above the template's frame, where a viewer types. */
function hostInput(): HTMLInputElement {
  const input = document.createElement('input');
  input.setAttribute('aria-label', 'host search');
  input.style.cssText = 'position: fixed; right: 8px; bottom: 8px; width: 200px; height: 32px; z-index: 2000;';
  document.body.append(input);
  return input;
}

async function clickOn(element: Element, dx = 0.5, dy = 0.5): Promise<void> {
  // A frame the host holds (hidden) is clicked at its place: its parent's box.
  const rect = (element.getBoundingClientRect().width > 0 ? element : (element.parentElement ?? element)).getBoundingClientRect();
  await sendMouse({ type: 'click', position: [Math.round(rect.left + rect.width * dx), Math.round(rect.top + rect.height * dy)] });
}

/**
 * The viewer types into the host's input while the thief loops, then clicks into the template
 * and types there: the first keys all stay in the host, the next all reach the template.
 */
async function typeThenClickIn(iframe: HTMLIFrameElement, thief: ThiefKeys, input: HTMLInputElement): Promise<void> {
  // The thief's loop runs from its load on: let it try for a while before the viewer types.
  await sleep(300);
  await clickOn(input);
  await sendKeys({ type: 'hello world' });
  // Keys the template took would be reported a moment later: give them the time to arrive.
  await sleep(200);
  expect(input.value).to.equal('hello world');
  expect(thief.keys).to.deep.equal([]);
  // Booleans: a failed equal of two elements makes mocha diff the whole DOM.
  expect(deepFocus() === input, 'the focus on the host input').to.equal(true);

  // A click into the template: its own loop (or the click) takes the focus, and its keys follow.
  await clickOn(iframe, 0.3, 0.7);
  await waitUntil(() => deepFocus() === iframe, 'the template to take the focus after a click in it');
  // Settled: the frame is another process, and the pointer events of the click can reach the host
  // after the blur they caused; the guard may judge the click a theft for a moment, and a thief
  // aimed at (the pointer is there) takes the focus straight back. A viewer does not type within it.
  await sleep(150);
  await waitUntil(() => deepFocus() === iframe, 'the focus to stay in the template');
  await sendKeys({ type: 'abc' });
  await waitUntil(() => thief.keys.join('') === 'abc', `the template to receive abc (has ${thief.keys.join('')})`);
  expect(input.value).to.equal('hello world');

  // And a click back on the host's input gives the host the keys again, thief or not.
  await clickOn(input);
  await sleep(300);
  await sendKeys({ type: '!' });
  await sleep(200);
  expect(input.value).to.equal('hello world!');
  expect(thief.keys.join('')).to.equal('abc');
}

describe('a template that focuses itself in a loop', function () {
  // Real clicks and keys across two renderer processes on a loaded 2-core machine.
  this.retries(1);
  let harness: EditorHarness | undefined;
  let feed: MountedFeed | undefined;
  let input: HTMLInputElement | undefined;
  let thief: ThiefKeys | undefined;
  afterEach(async () => {
    harness?.dispose();
    feed?.dispose();
    input?.remove();
    thief?.dispose();
    harness = feed = input = thief = undefined;
    await resetMouse();
  });

  it('in <platform-editor> takes no key typed into the host, and takes keys after a click in it', async () => {
    thief = new ThiefKeys();
    harness = await mountEditor({ type: 'instant', query: { steal: '1' }, layout: 'wide' });
    input = hostInput();
    const iframe = harness.editor.frame?.iframe;
    if (!iframe) throw new Error('the editor has no frame');
    await typeThenClickIn(iframe, thief, input);
  });

  it('in the feed takes no key typed into the host, and takes keys after a click in it', async () => {
    thief = new ThiefKeys();
    feed = mountFeed({ items: [{ url: templateUrl({ feed: '1', steal: '1' }), id: 'thief', projectId: 'p-thief', title: 'Thief' }] });
    input = hostInput();
    const controller: FeedController = feed.controller;
    await waitUntil(() => controller.statusAt(0) === 'loaded', 'the thief to load in the feed');
    const iframe = feed.box.querySelector('iframe') ?? [...feed.box.querySelectorAll('*')].map((element) => element.shadowRoot?.querySelector('iframe')).find(Boolean);
    if (!iframe) throw new Error('the feed has no iframe');
    await typeThenClickIn(iframe, thief, input);
  });

  it('lets Tab from the host into the template (keyboard users are not locked out)', async () => {
    thief = new ThiefKeys();
    const box = document.createElement('div');
    box.style.cssText = 'position: fixed; left: 0; top: 0; width: 400px; height: 300px; z-index: 1000;';
    const before = document.createElement('button');
    before.textContent = 'before';
    box.append(before);
    document.body.append(box);
    const frame = new TemplateFrame({ src: templateUrl({ steal: '1' }), container: box });
    try {
      await frame.whenLinked();
      before.focus();
      await sleep(300);
      expect(deepFocus() === before, 'the focus on the button before the frame').to.equal(true);
      await sendKeys({ press: 'Tab' });
      await waitUntil(() => deepFocus() === frame.iframe, 'Tab to move the focus into the template');
      await sendKeys({ type: 'xy' });
      await waitUntil(() => thief?.keys.join('') === 'xy', 'the template to receive xy');
    } finally {
      frame.destroy();
      box.remove();
    }
  });
});
