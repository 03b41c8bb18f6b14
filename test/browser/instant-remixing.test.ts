import { expect } from '@esm-bundle/chai';
import { RemixSession, TemplateFrame } from '../../host/index.js';
import { fixtureUrl, Probe, rejectionOf, sleep, waitUntil } from './support/probe.js';

interface Harness {
  frame: TemplateFrame;
  session: RemixSession;
  probe: Probe;
  dispose(): void;
}

function open(query: Record<string, string | number> = {}, sessionOptions: ConstructorParameters<typeof RemixSession>[0] = {}): Harness {
  const frame = new TemplateFrame({ src: fixtureUrl('probe', query), container: document.body });
  const session = new RemixSession(sessionOptions);
  const detach = session.attach(frame);
  const probe = new Probe(() => frame.iframe.contentWindow);
  return {
    frame,
    session,
    probe,
    dispose() {
      detach();
      frame.destroy();
      probe.dispose();
    },
  };
}

describe('instant remixing across a real cross-origin iframe', () => {
  let harness: Harness;
  afterEach(() => harness?.dispose());

  it('links, learns the built customization and reads predefined values', async () => {
    harness = open();
    await harness.frame.whenLinked();
    expect(harness.frame.origin).to.not.equal(location.origin);
    await waitUntil(() => harness.session.customization !== null, 'the customization');
    expect(harness.session.get(['card', 'title'])).to.equal('Hello');
    expect((await harness.probe.command('get', ['metadata', 'projectId'])).value).to.equal('probe-project');
    expect((await harness.probe.command('get', ['serviceMap', 'backend'])).value).to.equal('https://backend.example');
    expect((await harness.probe.command('get', ['card', 'missing'])).value).to.equal(undefined);
    expect((await harness.probe.command('get', ['nothing', 'here', 'deep'])).value).to.equal(undefined);
  });

  it('refuses malformed paths in get() with INVALID_PATH', async () => {
    harness = open();
    await harness.frame.whenLinked();
    for (const path of [['__proto__', 'x'], ['card', 'constructor'], [], 'card.title', [1, 2], ['card', 'prototype']]) {
      const reply = await harness.probe.command('get', path);
      expect(reply.ok, JSON.stringify(path)).to.equal(false);
      expect((reply.value as { code: string }).code).to.equal('INVALID_PATH');
    }
  });

  it('echoes onSetValue to onValueChanged, and skipUpdate suppresses exactly that echo', async () => {
    harness = open();
    await harness.probe.waitFor('remixing');
    const changes: unknown[] = [];
    harness.session.on('valuechange', (change) => changes.push(change));
    expect((await harness.probe.command('setValue', ['card', 'title'], 'Typed', true)).ok).to.equal(true);
    expect(harness.session.get(['card', 'title'])).to.equal('Typed');
    expect((await harness.probe.command('get', ['card', 'title'])).value).to.equal('Typed');
    expect((await harness.probe.command('setValue', ['card', 'title'], 'Echoed', false)).ok).to.equal(true);
    const echoes = await harness.probe.waitFor('valueChanged');
    await sleep(50);
    expect(harness.probe.of('valueChanged')).to.deep.equal([{ path: ['card', 'title'], value: 'Echoed' }]);
    expect(echoes.length).to.equal(1);
    expect(changes).to.deep.equal([
      { path: ['card', 'title'], value: 'Typed', source: 'guest' },
      { path: ['card', 'title'], value: 'Echoed', source: 'guest' },
    ]);
  });

  it('host edits reach onValueChanged; refused values keep the last good one on both sides', async () => {
    harness = open();
    await harness.probe.waitFor('remixing');
    await waitUntil(() => harness.session.customization !== null, 'the customization');
    harness.session.setValue(['card', 'size'], 42);
    await harness.probe.waitFor('valueChanged');
    expect(harness.probe.of('valueChanged')[0]).to.deep.equal({ path: ['card', 'size'], value: 42 });

    const wrongType = await harness.probe.command('setValue', ['card', 'size'], 'big');
    expect(wrongType.ok).to.equal(false);
    expect((wrongType.value as { code: string }).code).to.equal('INVALID_VALUE');
    expect(harness.session.get(['card', 'size'])).to.equal(42);
    expect((await harness.probe.command('get', ['card', 'size'])).value).to.equal(42);

    const tooLarge = await harness.probe.command('setValue', ['card', 'title'], 'x'.repeat(300 * 1024));
    expect((tooLarge.value as { code: string }).code).to.equal('VALUE_TOO_LARGE');
    expect(harness.session.get(['card', 'title'])).to.equal('Hello');

    expect(() => harness.session.setValue(['card', 'color'], 'not a color'))
      .to.throw()
      .with.property('code', 'INVALID_VALUE');
    expect(() => harness.session.setValue(['card', 'title'], () => 1))
      .to.throw()
      .with.property('code', 'INVALID_VALUE');
    const readOnly = await harness.probe.command('setValue', ['metadata', 'projectId'], 'stolen');
    expect((readOnly.value as { code: string }).code).to.equal('INVALID_PATH');
    expect((await harness.probe.command('get', ['metadata', 'projectId'])).value).to.equal('probe-project');
  });

  it('tells remix state, active path, present-control requests and finish', async () => {
    harness = open({}, { editorAttributes: { type: 'full', mode: 'edit' } });
    const [initial] = await harness.probe.waitFor('remixing');
    expect(initial).to.deep.equal({ isRemixing: true, editorAttributes: { type: 'full', mode: 'edit' } });
    await waitUntil(() => harness.session.customization !== null, 'the customization');

    const presented: unknown[] = [];
    harness.session.on('presentcontrol', (event) => presented.push(event));
    await harness.probe.command('presentControl', ['card', 'size'], { position: { x: 10, y: 20 } });
    expect(presented).to.have.length(1);
    expect(presented[0]).to.deep.include({ path: ['card', 'size'], position: { x: 10, y: 20 }, explicitPosition: true });
    expect((presented[0] as { type: unknown }).type).to.deep.equal({ kind: 'range', min: 0, max: 100, step: 1 });
    const badPosition = await harness.probe.command('presentControl', ['card', 'size'], { position: { x: 'left', y: 0 } });
    expect((badPosition.value as { code: string }).code).to.equal('INVALID_ARGUMENT');

    harness.session.setActivePath(['card', 'size']);
    harness.session.setActivePath(null);
    await harness.probe.waitFor('activePath', 2);
    expect(harness.probe.of('activePath')).to.deep.equal([{ path: ['card', 'size'] }, { path: null }]);

    let finished = 0;
    harness.session.on('finish', () => finished++);
    await harness.probe.command('finish');
    expect(finished).to.equal(1);
    expect(harness.session.remixing).to.equal(false);
    const remixing = await harness.probe.waitFor('remixing', 2);
    expect(remixing[1]).to.deep.equal({ isRemixing: false, editorAttributes: { type: 'full', mode: 'edit' } });
  });

  it('queues notifications until ready(), then delivers them in order; get() works before and after', async () => {
    harness = open({ ready: 'manual' }, { values: { card: { title: 'From draft' } } });
    await harness.frame.whenLinked();
    await waitUntil(() => harness.session.customization !== null, 'the customization');
    for (let size = 1; size <= 20; size++) harness.session.setValue(['card', 'size'], size);
    harness.session.setActivePath(['card', 'title']);
    await sleep(100);
    expect(harness.probe.reports.filter((report) => report.kind !== 'loaded')).to.deep.equal([]);
    expect(harness.frame.queuedCount).to.equal(22);
    expect((await harness.probe.command('get', ['card', 'title'])).value).to.equal('From draft');

    await harness.probe.command('ready');
    await harness.probe.waitFor('activePath');
    const kinds = harness.probe.reports.filter((report) => report.kind !== 'loaded').map((report) => report.kind);
    expect(kinds).to.deep.equal(['remixing', ...Array<string>(20).fill('valueChanged'), 'activePath']);
    expect(harness.probe.of('valueChanged').map((change) => change['value'])).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await harness.probe.command('get', ['card', 'size'])).value).to.equal(20);
  });

  it('removes a listener with the function on…() returned', async () => {
    harness = open();
    await harness.probe.waitFor('remixing');
    harness.session.setValue(['card', 'title'], 'heard');
    await harness.probe.waitFor('valueChanged');
    await harness.probe.command('removeValueListener');
    harness.session.setValue(['card', 'title'], 'not heard');
    harness.session.setActivePath(['card', 'title']);
    await harness.probe.waitFor('activePath');
    expect(harness.probe.of('valueChanged').map((change) => change['value'])).to.deep.equal(['heard']);
    expect((await harness.probe.command('get', ['card', 'title'])).value).to.equal('not heard');
  });

  it("lets the host's values win over predefined ones in a remix", async () => {
    harness = open({}, { values: { metadata: { projectId: 'remix-42' }, serviceMap: { backend: 'https://remix.example' } } });
    await harness.probe.waitFor('remixing');
    expect((await harness.probe.command('get', ['metadata', 'projectId'])).value).to.equal('remix-42');
    expect((await harness.probe.command('get', ['serviceMap', 'backend'])).value).to.equal('https://remix.example');
    expect((await harness.probe.command('get', ['card', 'title'])).value).to.equal('Hello');
  });

  it('onSetCurrentState warns once and does nothing', async () => {
    harness = open();
    await harness.probe.waitFor('remixing');
    const before = (await harness.probe.command('console')).value as { warn: number };
    await harness.probe.command('currentState');
    const after = (await harness.probe.command('console')).value as { warn: number };
    expect(after.warn - before.warn).to.equal(1);
  });

  it('a refused guest value rejects its promise with the host code', async () => {
    harness = open();
    await harness.probe.waitFor('remixing');
    await waitUntil(() => harness.session.customization !== null, 'the customization');
    const refused: unknown[] = [];
    harness.session.on('refusedvalue', (event) => refused.push(event.error.code));
    const reply = await harness.probe.command('setValue', ['card', 'tags'], ['a', 'b', 'c', 'd', 'e', 'f']);
    expect((reply.value as { code: string; message: string }).code).to.equal('INVALID_VALUE');
    expect((reply.value as { message: string }).message).to.match(/^platform-kit: /);
    expect(refused).to.deep.equal(['INVALID_VALUE']);
    expect(await rejectionOf(Promise.reject(Object.assign(new Error('x'), { code: 'X' })))).to.have.property('code', 'X');
  });

  it("attach() adds its handlers over the frame's own, and detach() removes only its own", async () => {
    const readies: string[] = [];
    const frame = new TemplateFrame({ src: fixtureUrl('probe', { ready: 'manual' }), container: document.body, handlers: { ready: () => readies.push('base') } });
    const session = new RemixSession({ values: { card: { title: 'Given' } } });
    const detach = session.attach(frame);
    const removeLayer = frame.addHandlers({ ready: () => readies.push('layer') });
    const probe = new Probe(() => frame.iframe.contentWindow);
    harness = {
      frame,
      session,
      probe,
      dispose() {
        detach();
        frame.destroy();
        probe.dispose();
      },
    };
    await frame.whenLinked();
    // The values come over the port; the probe's commands over window messages: no order between the two.
    await waitUntil(() => session.customization !== null, 'the customization');
    expect((await probe.command('get', ['card', 'title'])).value).to.equal('Given');
    // Every layer hears the gate: the frame's own handler was not replaced by the session's.
    expect((await probe.command('ready')).ok).to.equal(true);
    expect(readies).to.deep.equal(['base', 'layer']);
    expect((await probe.command('setValue', ['card', 'title'], 'Typed')).ok).to.equal(true);
    removeLayer();
    removeLayer(); // idempotent
    detach();
    // Detached: the remix calls have no handler again (the frame answers UNSUPPORTED, which
    // onSetValue takes as "does not apply here": it resolves and keeps the last value); the base stays.
    const reply = await probe.command('setValue', ['card', 'title'], 'After');
    expect(reply.ok).to.equal(true);
    expect((await probe.command('get', ['card', 'title'])).value).to.equal('Typed');
    expect((await probe.command('ready')).ok).to.equal(true);
    expect(readies).to.deep.equal(['base', 'layer', 'base']);
  });
});
