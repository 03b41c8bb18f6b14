import { expect } from '@esm-bundle/chai';
import { RemixSession, TemplateFrame } from '../../host/index.js';
import { fixtureUrl, Probe, rejectionOf, sleep, TEMPLATE_ORIGIN, waitUntil } from './support/probe.js';

describe('link lifecycle: reloads, timeouts, standalone, many frames', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  function openProbe(query: Record<string, string | number> = {}, session = new RemixSession()) {
    const frame = new TemplateFrame({ src: fixtureUrl('probe', query), container: document.body });
    const probe = new Probe(() => frame.iframe.contentWindow);
    cleanups.push(
      session.attach(frame),
      () => frame.destroy(),
      () => probe.dispose(),
    );
    return { frame, probe, session };
  }

  it('relinks a guest that reloads and re-sends the remix state', async () => {
    const { frame, probe, session } = openProbe({}, new RemixSession({ editorAttributes: { type: 'instant', mode: 'edit' } }));
    const links: boolean[] = [];
    frame.on('link', (event) => links.push(event.relinked));
    await probe.waitFor('remixing');
    await probe.command('setValue', ['card', 'title'], 'Before reload');
    session.setActivePath(['card', 'title']);
    await probe.waitFor('activePath');

    probe.reports.length = 0;
    await probe.command('reload');
    await probe.waitFor('loaded');
    await probe.waitFor('activePath');
    expect(links).to.deep.equal([false, true]);
    expect(probe.of('remixing')).to.deep.equal([{ isRemixing: true, editorAttributes: { type: 'instant', mode: 'edit' } }]);
    expect(probe.of('activePath')).to.deep.equal([{ path: ['card', 'title'] }]);
    expect((await probe.command('get', ['card', 'title'])).value).to.equal('Before reload');
    // The new page is linked: its calls work.
    expect((await probe.command('setValue', ['card', 'title'], 'After reload')).ok).to.equal(true);
    expect(session.get(['card', 'title'])).to.equal('After reload');
  });

  it('relinks a guest that navigates within its origin', async () => {
    const { frame, probe } = openProbe({ tag: 'first' });
    await frame.whenLinked();
    let relinks = 0;
    frame.on('link', (event) => (relinks += event.relinked ? 1 : 0));
    await probe.command('navigate', fixtureUrl('probe', { tag: 'second' }));
    await waitUntil(() => relinks === 1, 'a relink after navigation');
    await waitUntil(() => probe.reports.some((report) => report.kind === 'loaded' && String(report.data['href']).includes('tag=second')), 'the second page');
  });

  it('fails calls in flight with LINK_RESET when the guest reloads, and never hangs', async () => {
    const frame = new TemplateFrame({ src: fixtureUrl('mute', { reloadAfterMs: 200 }), container: document.body, callTimeoutMs: 10_000 });
    cleanups.push(() => frame.destroy());
    await frame.whenLinked();
    const started = performance.now();
    const inFlight = frame.request('describe');
    const queued = frame.notify('valueChanged', ['card', 'title'], 'x');
    const [callError, queueError] = await Promise.all([rejectionOf(inFlight), rejectionOf(queued)]);
    expect(callError.code).to.equal('LINK_RESET');
    expect(queueError.code).to.equal('LINK_RESET');
    expect(performance.now() - started).to.be.lessThan(5_000);
  });

  it('fails a call with no answer with CALL_TIMEOUT', async () => {
    const frame = new TemplateFrame({ src: fixtureUrl('mute'), container: document.body, callTimeoutMs: 300 });
    cleanups.push(() => frame.destroy());
    const error = await rejectionOf(frame.request('describe'));
    expect(error.code).to.equal('CALL_TIMEOUT');
    expect(error.name).to.equal('PlatformError');
    expect(error.message).to.match(/^platform-kit: "describe" got no answer within 300 ms/);
  });

  it('fails the handshake with HANDSHAKE_TIMEOUT when the page never says hello', async () => {
    const frame = new TemplateFrame({ src: fixtureUrl('silent'), container: document.body, handshakeTimeoutMs: 300 });
    cleanups.push(() => frame.destroy());
    const errors: string[] = [];
    frame.on('error', (error) => errors.push(error.code));
    const error = await rejectionOf(frame.whenLinked());
    expect(error.code).to.equal('HANDSHAKE_TIMEOUT');
    expect(errors).to.deep.equal(['HANDSHAKE_TIMEOUT']);
  });

  it('fails guest calls with CALL_TIMEOUT when the host never answers', async () => {
    // The test page answers the hello, then stays mute.
    const iframe = document.createElement('iframe');
    iframe.src = fixtureUrl('probe', { callTimeoutMs: 300 });
    const probe = new Probe(() => iframe.contentWindow);
    cleanups.push(
      () => iframe.remove(),
      () => probe.dispose(),
    );
    const channel = new MessageChannel();
    const onHello = (event: MessageEvent) => {
      if (event.source !== iframe.contentWindow || (event.data as { type?: string })?.type !== 'platform-kit:hello') return;
      window.removeEventListener('message', onHello);
      iframe.contentWindow?.postMessage({ type: 'platform-kit:welcome', version: 1, helloId: (event.data as { helloId: string }).helloId }, TEMPLATE_ORIGIN, [channel.port2]);
    };
    window.addEventListener('message', onHello);
    document.body.append(iframe);
    await probe.waitFor('loaded');
    const reply = await probe.command('finish');
    expect(reply.ok).to.equal(false);
    expect((reply.value as { code: string }).code).to.equal('CALL_TIMEOUT');
  });

  it('runs standalone when the parent never answers: built values, no listener, one debug line', async () => {
    const iframe = document.createElement('iframe');
    iframe.src = fixtureUrl('probe', { handshakeTimeoutMs: 300 });
    const probe = new Probe(() => iframe.contentWindow);
    cleanups.push(
      () => iframe.remove(),
      () => probe.dispose(),
    );
    document.body.append(iframe);
    await probe.waitFor('loaded');
    expect((await probe.command('get', ['card', 'title'])).value).to.equal('Hello');
    expect((await probe.command('setValue', ['card', 'title'], 'Local')).ok).to.equal(true);
    expect((await probe.command('finish')).ok).to.equal(true);
    expect((await probe.command('get', ['card', 'title'])).value).to.equal('Local');
    await sleep(200);
    expect(probe.reports.filter((report) => report.kind !== 'loaded')).to.deep.equal([]);
    expect((await probe.command('console')).value).to.deep.equal({ debug: 1, warn: 0, error: 0, log: 0 });
    expect((await probe.command('errors')).value).to.deep.equal([]);
  });

  it('runs standalone when opened on its own (no parent): no hello, no console line', async () => {
    const popup = window.open(fixtureUrl('probe'), '_blank');
    expect(popup, 'the popup opened').to.not.equal(null);
    const probe = new Probe(() => popup);
    cleanups.push(
      () => popup?.close(),
      () => probe.dispose(),
    );
    await probe.waitFor('loaded');
    expect((await probe.command('get', ['card', 'color'])).value).to.equal('#ff0000');
    expect((await probe.command('setValue', ['card', 'color'], '#00ff00')).ok).to.equal(true);
    expect((await probe.command('ready')).ok).to.equal(true);
    await sleep(100);
    expect(probe.reports.filter((report) => report.kind !== 'loaded')).to.deep.equal([]);
    expect((await probe.command('console')).value).to.deep.equal({ debug: 0, warn: 0, error: 0, log: 0 });
  });

  it('twenty frames on one page never cross-talk', async () => {
    const opened = Array.from({ length: 20 }, (_, index) => openProbe({ tag: String(index) }, new RemixSession({ values: { card: { title: `Frame ${index}` } } })));
    await Promise.all(opened.map(({ probe }) => probe.waitFor('remixing')));
    const titles = await Promise.all(opened.map(({ probe }) => probe.command('get', ['card', 'title'])));
    expect(titles.map((reply) => reply.value)).to.deep.equal(opened.map((_, index) => `Frame ${index}`));

    await Promise.all(opened.map(({ probe }, index) => probe.command('setValue', ['card', 'size'], index)));
    opened.forEach(({ session }, index) => expect(session.get(['card', 'size'])).to.equal(index));
    opened[7]?.session.setValue(['card', 'title'], 'Only seven');
    await opened[7]?.probe.waitFor('valueChanged', 2);
    await sleep(50);
    opened.forEach(({ probe }, index) => {
      const changes = probe.of('valueChanged');
      expect(
        changes.map((change) => change['value']),
        `frame ${index}`,
      ).to.deep.equal(index === 7 ? [7, 'Only seven'] : [index]);
    });
    for (const { frame } of opened) expect(frame.refusedCount).to.equal(0);
  });

  it('adopts an iframe the page already has, and leaves it in place on destroy()', async () => {
    const iframe = document.createElement('iframe');
    document.body.append(iframe);
    const frame = new TemplateFrame({ src: fixtureUrl('probe'), iframe, allow: 'camera; microphone' });
    const probe = new Probe(() => iframe.contentWindow);
    cleanups.push(
      new RemixSession().attach(frame),
      () => probe.dispose(),
      () => iframe.remove(),
    );
    await probe.waitFor('remixing');
    expect(frame.iframe).to.equal(iframe);
    expect(iframe.getAttribute('allow')).to.equal('camera; microphone');
    frame.destroy();
    expect(iframe.isConnected).to.equal(true);
  });

  it('destroy() releases the port and removes the iframe; calls then fail with LINK_CLOSED', async () => {
    const { frame, probe } = openProbe();
    await probe.waitFor('remixing');
    frame.destroy();
    frame.destroy();
    expect(frame.iframe.isConnected).to.equal(false);
    expect(frame.state).to.equal('destroyed');
    expect((await rejectionOf(frame.request('describe'))).code).to.equal('LINK_CLOSED');
    expect((await rejectionOf(frame.notify('activePathChanged', null))).code).to.equal('LINK_CLOSED');
  });
});
