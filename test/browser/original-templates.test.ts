/**
 * Templates written for the original platform run with only their SDK import
 * changed (issue 16, guest; issue 24: the import is the compat entry, which adds
 * addListener and the default export). The fixture test/fixtures/original/messages.js is
 * such a template: plain JavaScript, values read at start-up, listeners set
 * before ready(), promises dropped. It runs in a real cross-origin iframe.
 */
import { expect } from '@esm-bundle/chai';
import { RemixSession, TemplateFrame, type ValueOverrides } from '../../host/index.js';
import { HOST_ORIGIN, Probe, sleep, TEMPLATE_ORIGIN, waitUntil } from './support/probe.js';

interface Harness {
  frame: TemplateFrame;
  session: RemixSession | null;
  probe: Probe;
  dispose(): void;
}

function templateUrl(query: Record<string, string> = {}): string {
  const url = new URL('/test/fixtures/original/messages.html', TEMPLATE_ORIGIN);
  url.searchParams.set('parent', HOST_ORIGIN);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return url.toString();
}

/** The template in a frame; with `withSession` false, in a host that answers no remix call (a plain feed item's situation). */
function open(options: { withSession: boolean; query?: Record<string, string>; values?: ValueOverrides }): Harness {
  const frame = new TemplateFrame({ src: templateUrl(options.query), container: document.body });
  const session = options.withSession ? new RemixSession(options.values ? { values: options.values } : {}) : null;
  const detach = session?.attach(frame);
  const probe = new Probe(() => frame.iframe.contentWindow);
  return {
    frame,
    session,
    probe,
    dispose() {
      detach?.();
      frame.destroy();
      probe.dispose();
    },
  };
}

describe('templates of the original platform, with only the import changed', () => {
  let harness: Harness;
  afterEach(() => harness?.dispose());

  it('reads isRemixing, editorAttributes and remixingActivePath, kept current by the notifications', async () => {
    harness = open({ withSession: true });
    const session = harness.session as RemixSession;
    await harness.probe.waitFor('remixing');
    session.setRemixing(true, { type: 'instant', mode: 'new' });
    const [, entered] = await harness.probe.waitFor('remixing', 2);
    // Inside the listener the getters already tell the new state.
    expect(entered).to.deep.equal({
      isRemixing: true,
      editorAttributes: { type: 'instant', mode: 'new' },
      getters: { isRemixing: true, editorAttributes: { type: 'instant', mode: 'new' } },
    });
    session.setActivePath(['messages', 'title']);
    const [opened] = await harness.probe.waitFor('activePath');
    expect(opened).to.deep.equal({ path: ['messages', 'title'], getter: ['messages', 'title'] });
    session.setActivePath(null);
    await harness.probe.waitFor('activePath', 2);
    session.setRemixing(false);
    await harness.probe.waitFor('remixing', 3);
    expect((await harness.probe.command('getters')).value).to.deep.equal({
      isRemixing: false,
      editorAttributes: { type: 'instant', mode: 'new' },
      remixingActivePath: null,
    });
  });

  it("the compat entry's default export gives config (the built values, metadata and serviceMap included) and deprecated calls that do nothing (issue 24)", async () => {
    harness = open({ withSession: false });
    await harness.probe.waitFor('loaded');
    const { ok, value } = await harness.probe.command('koji');
    expect(ok).to.equal(true);
    expect(value).to.deep.equal({
      config: { metadata: {}, serviceMap: {}, messages: { title: 'Inbox', items: [{ text: 'one' }, { text: 'two' }] } },
      same: true,
      title: 'Inbox',
    });
    expect((await harness.probe.command('outcome')).value)
      .to.have.property('uncaught')
      .that.deep.equals([]);
  });

  it('before any notification the getters tell: not remixing, no attributes, no active path', async () => {
    harness = open({ withSession: false });
    await harness.frame.whenLinked();
    await harness.probe.waitFor('loaded');
    expect((await harness.probe.command('getters')).value).to.deep.equal({ isRemixing: false, editorAttributes: {}, remixingActivePath: null });
  });

  it('a template that read its values at start-up shows the host’s values once ready (a published remix)', async () => {
    harness = open({ withSession: true, values: { messages: { title: 'Remixed title', items: [{ text: 'remixed' }] } } });
    await harness.probe.waitFor('remixing');
    // The template read both values before the link was made; each is told once, as [scope, key] and its value.
    await harness.probe.waitFor('valueChanged', 2);
    await sleep(100);
    expect(harness.probe.of('valueChanged')).to.have.deep.members([
      { path: ['messages', 'title'], newValue: 'Remixed title' },
      { path: ['messages', 'items'], newValue: [{ text: 'remixed' }] },
    ]);
    expect(harness.probe.of('valueChanged').length).to.equal(2);
    expect((await harness.probe.command('shown')).value).to.deep.equal({ title: 'Remixed title', items: ['remixed'] });
  });

  it('values the host leaves as built are not told again', async () => {
    harness = open({ withSession: true, values: { messages: { title: 'Inbox' } } });
    await harness.probe.waitFor('remixing');
    await sleep(300);
    expect(harness.probe.of('valueChanged')).to.deep.equal([]);
  });

  it('takes numbers in a path as list indexes and ignores a trailing undefined', async () => {
    harness = open({ withSession: true });
    const session = harness.session as RemixSession;
    await harness.probe.waitFor('remixing');
    await waitUntil(() => session.customization !== null, 'the customization');
    expect((await harness.probe.command('get', ['messages', 'items', 1, 'text'])).value).to.equal('two');
    expect((await harness.probe.command('get', ['messages', 'title', undefined])).value).to.equal('Inbox');
    expect((await harness.probe.command('get', ['messages', 'items', 5, 'text'])).value).to.equal(undefined);
    // As a click handler does it (no await): no INVALID_PATH thrown into the handler.
    expect((await harness.probe.command('setValue', ['messages', 'items', 0, 'text'], 'First!')).ok).to.equal(true);
    // The list stays a list, on both sides.
    await waitUntil(() => JSON.stringify(session.get(['messages', 'items'])) === JSON.stringify([{ text: 'First!' }, { text: 'two' }]), 'the host to hold the edited list');
    expect((await harness.probe.command('get', ['messages', 'items'])).value).to.deep.equal([{ text: 'First!' }, { text: 'two' }]);
    // Scope and key are names: a number there is refused, and so is an index past the end of the list.
    const refused = await harness.probe.command('get', ['messages', 0]);
    expect(refused.ok).to.equal(false);
    expect((refused.value as { code: string }).code).to.equal('INVALID_PATH');
  });

  it('after a deep change, onValueChanged hears [scope, key] and the whole value, as the original told it', async () => {
    harness = open({ withSession: true });
    const session = harness.session as RemixSession;
    await harness.probe.waitFor('remixing');
    await waitUntil(() => session.customization !== null, 'the customization');
    // The template's own deep edit, echoed.
    await harness.probe.command('setValue', ['messages', 'items', 1, 'text'], 'Second');
    const [own] = await harness.probe.waitFor('valueChanged');
    expect(own).to.deep.equal({ path: ['messages', 'items'], newValue: [{ text: 'one' }, { text: 'Second' }] });
    // The editor's deep edit.
    session.setValue(['messages', 'items', '0', 'text'], 'From the editor');
    const [, fromHost] = await harness.probe.waitFor('valueChanged', 2);
    expect(fromHost).to.deep.equal({ path: ['messages', 'items'], newValue: [{ text: 'From the editor' }, { text: 'Second' }] });
    // The template keeps state[path[1]] = newValue and renders it: what it shows is whole.
    expect((await harness.probe.command('shown')).value).to.deep.equal({ title: 'Inbox', items: ['From the editor', 'Second'] });
  });

  it('a nested field edited from the template’s own box while the user types loses no character', async () => {
    harness = open({ withSession: true });
    const session = harness.session as RemixSession;
    await harness.probe.waitFor('remixing');
    await waitUntil(() => session.customization !== null, 'the customization');
    const seen: unknown[] = [];
    session.on('valuechange', ({ path, value }) => seen.push([path.join('.'), value]));
    expect((await harness.probe.command('type', 'Hello, world')).value).to.equal('Hello, world');
    await waitUntil(() => session.get(['messages', 'items', '0', 'text']) === 'Hello, world', 'the host to hold every keystroke');
    expect(seen.length).to.equal('Hello, world'.length);
    // The host's own event, like the template's listeners, tells [scope, key] and the whole value.
    expect(seen.at(-1)).to.deep.equal(['messages.items', [{ text: 'Hello, world' }, { text: 'two' }]]);
    // skipUpdate: the template heard no echo of its own keystrokes, and its list is intact around the edited item.
    await sleep(50);
    expect(harness.probe.of('valueChanged')).to.deep.equal([]);
    expect((await harness.probe.command('get', ['messages', 'items'])).value).to.deep.equal([{ text: 'Hello, world' }, { text: 'two' }]);
  });

  it('calls the spec gives no result, made where they do not apply, resolve as no-ops: nothing uncaught, one debug line each', async () => {
    harness = open({ withSession: false, query: { onError: 'yes' } });
    await harness.frame.whenLinked();
    await harness.probe.waitFor('loaded');
    await harness.probe.command('fireAndForget');
    await harness.probe.command('fireAndForget');
    await sleep(300);
    const outcome = (await harness.probe.command('outcome')).value as { uncaught: string[]; failures: unknown[]; debugLines: string[] };
    expect(outcome.uncaught).to.deep.equal([]);
    expect(outcome.failures).to.deep.equal([]);
    // This host answers none of them but ready and load (UNSUPPORTED); each method says so once, not once per call.
    const methods = outcome.debugLines.map((line) => /platform-kit: (\w+)\(\)/.exec(line)?.[1]);
    expect(new Set(methods).size, outcome.debugLines.join('\n')).to.equal(methods.length);
    expect(methods).to.include.members(['onSetValue', 'onPresentControl', 'finish', 'navigate', 'present', 'share', 'createRemix', 'requestCancelTouch']);
    // The value the host never took is not kept either.
    expect((await harness.probe.command('get', ['messages', 'title'])).value).to.equal('Inbox');
  });

  it('two refused sets in a row leave the last value the host accepted, not the first refused one', async () => {
    harness = open({ withSession: false });
    await harness.frame.whenLinked();
    await harness.probe.waitFor('loaded');
    await harness.probe.command('setTwice', ['messages', 'title'], 'first click', 'second click');
    await sleep(300);
    expect((await harness.probe.command('get', ['messages', 'title'])).value).to.equal('Inbox');
  });

  it('a real refusal goes to onError, not to "Uncaught (in promise)"', async () => {
    harness = open({ withSession: true, query: { onError: 'yes' } });
    const session = harness.session as RemixSession;
    await harness.probe.waitFor('remixing');
    await waitUntil(() => session.customization !== null, 'the customization');
    await harness.probe.command('setValue', ['messages', 'undeclared'], 'x');
    await harness.probe.command('setValue', ['messages', 'items', 7, 'text'], 'past the end');
    await sleep(200);
    const outcome = (await harness.probe.command('outcome')).value as { uncaught: string[]; failures: unknown[] };
    expect(outcome.uncaught).to.deep.equal([]);
    expect(outcome.failures).to.deep.equal([
      { code: 'INVALID_PATH', method: 'onSetValue' },
      { code: 'INVALID_PATH', method: 'onSetValue' },
    ]);
  });

  it('without an onError listener a refusal is a console warning, still never uncaught', async () => {
    harness = open({ withSession: true });
    const session = harness.session as RemixSession;
    await harness.probe.waitFor('remixing');
    await waitUntil(() => session.customization !== null, 'the customization');
    await harness.probe.command('setValue', ['messages', 'undeclared'], 'x');
    await sleep(200);
    expect(((await harness.probe.command('outcome')).value as { uncaught: string[] }).uncaught).to.deep.equal([]);
  });
});
