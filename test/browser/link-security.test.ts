import { expect } from '@esm-bundle/chai';
import { RemixSession, TemplateFrame, type RefusedEvent } from '../../host/index.js';
import { fixtureUrl, HOST_ORIGIN, Probe, sleep, TEMPLATE_ORIGIN, waitUntil } from './support/probe.js';

function pollutionCheck(): void {
  expect(({} as Record<string, unknown>)['polluted']).to.equal(undefined);
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).to.equal(false);
}

describe('the link refuses hostile frames', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it('refuses SET, CONSTRUCT, GET, nested and prototype paths, handler arguments and junk from a cross-origin iframe', async () => {
    const frame = new TemplateFrame({ src: fixtureUrl('attack'), container: document.body });
    const session = new RemixSession({
      customization: { version: 1, values: { card: { title: 'Safe' } }, editor: [{ key: 'card', fields: [{ key: 'title', type: 'text' }] }] },
    });
    cleanups.push(session.attach(frame), () => frame.destroy());
    const probe = new Probe(() => frame.iframe.contentWindow);
    cleanups.push(() => probe.dispose());
    const refused: RefusedEvent[] = [];
    frame.on('refused', (event) => refused.push(event));
    const called: string[] = [];
    session.on('valuechange', () => called.push('valuechange'));
    session.on('finish', () => called.push('finish'));

    const [{ replies }] = (await probe.waitFor('attack')) as [{ replies: Record<string, { ok: boolean; error?: { code: string; name: string; message: string } }> }];
    const codeOf = (id: string) => replies[id]?.error?.code;
    for (const id of ['get', 'set', 'construct', 'endpoint', 'release', 'nested', 'proto', 'constructor', 'prototype', 'getproto', 'unknown']) {
      expect(codeOf(id), id).to.equal('METHOD_NOT_ALLOWED');
      expect(replies[id]?.error?.name).to.equal('PlatformError');
      expect(replies[id]?.error?.message).to.match(/^platform-kit: /);
    }
    expect(codeOf('handler')).to.equal('INVALID_MESSAGE');
    expect(codeOf('toomany')).to.equal('INVALID_MESSAGE');
    // Past the door, the handlers check their arguments themselves.
    expect(codeOf('pollute-path')).to.equal('INVALID_PATH');
    expect(codeOf('pollute-value')).to.equal('INVALID_VALUE');
    expect(replies['legit']).to.deep.equal({ ok: true, value: undefined });
    expect(session.lastPointer).to.deep.equal({ x: 1, y: 2 });

    // 13 refusals answered, plus the call without an id and the string: 15 counted.
    expect(frame.refusedCount).to.equal(15);
    expect(refused.map((event) => event.code).filter((code) => code === 'METHOD_NOT_ALLOWED')).to.have.length(11);
    expect(called).to.deep.equal([]);
    expect(session.get(['card', 'title'])).to.equal('Safe');
    pollutionCheck();
  });

  it('refuses a hello from a foreign origin in the template iframe', async () => {
    // The template navigates itself to another origin, which then says hello.
    const foreign = fixtureUrl('probe', {}, HOST_ORIGIN);
    const frame = new TemplateFrame({ src: fixtureUrl('redirect', { to: foreign }), container: document.body, handshakeTimeoutMs: 1_500 });
    cleanups.push(() => frame.destroy());
    const refused: RefusedEvent[] = [];
    frame.on('refused', (event) => refused.push(event));
    await waitUntil(() => refused.length > 0, 'a refused hello');
    expect(refused[0]?.code).to.equal('ORIGIN_REFUSED');
    expect(frame.state).to.equal('loading');
    const error = await frame.whenLinked().then(
      () => null,
      (failure: unknown) => failure as { code: string },
    );
    expect(error?.code).to.equal('HANDSHAKE_TIMEOUT');
  });

  it('accepts a second origin only when it is allow-listed, and never a wildcard', async () => {
    const foreign = fixtureUrl('probe', {}, HOST_ORIGIN);
    const frame = new TemplateFrame({ src: fixtureUrl('redirect', { to: foreign }), container: document.body, allowedOrigins: [HOST_ORIGIN] });
    cleanups.push(() => frame.destroy());
    await frame.whenLinked();
    expect(frame.refusedCount).to.equal(0);
    expect(() => new TemplateFrame({ src: fixtureUrl('probe'), allowedOrigins: ['*'] }))
      .to.throw()
      .with.property('code', 'INVALID_ARGUMENT');
    expect(() => new TemplateFrame({ src: 'javascript:alert(1)' }))
      .to.throw()
      .with.property('code', 'INVALID_ARGUMENT');
  });

  it('a second iframe cannot speak for the first', async () => {
    const frame = new TemplateFrame({ src: fixtureUrl('probe'), container: document.body });
    cleanups.push(() => frame.destroy());
    const links: boolean[] = [];
    frame.on('link', (event) => links.push(event.relinked));
    await frame.whenLinked();
    await sleep(100);

    const impostor = document.createElement('iframe');
    impostor.src = fixtureUrl('impostor');
    const impostorProbe = new Probe(() => impostor.contentWindow);
    document.body.append(impostor);
    cleanups.push(
      () => impostor.remove(),
      () => impostorProbe.dispose(),
    );
    const [report] = await impostorProbe.waitFor('impostor');
    expect(report).to.deep.equal({ welcomes: 0 });
    expect(links).to.deep.equal([false]);
    expect(frame.state).to.not.equal('loading');
  });

  it('the guest refuses a hostile host the same way', async () => {
    // The test page plays a host that links a real guest, then attacks its surface.
    const iframe = document.createElement('iframe');
    iframe.src = fixtureUrl('probe');
    const probe = new Probe(() => iframe.contentWindow);
    cleanups.push(
      () => iframe.remove(),
      () => probe.dispose(),
    );
    const channel = new MessageChannel();
    const replies: Record<string, { ok: boolean; error?: { code: string } }> = {};
    channel.port1.onmessage = (event: MessageEvent) => {
      const data = event.data as { id?: string; value?: { ok: boolean; error?: { code: string } }; path?: unknown };
      if (typeof data.id === 'string' && data.path === undefined && data.value) replies[data.id] = data.value;
    };
    const onHello = (event: MessageEvent) => {
      if (event.source !== iframe.contentWindow || (event.data as { type?: string })?.type !== 'platform-kit:hello') return;
      window.removeEventListener('message', onHello);
      const helloId = (event.data as { helloId: string }).helloId;
      iframe.contentWindow?.postMessage({ type: 'platform-kit:welcome', version: 1, helloId }, TEMPLATE_ORIGIN, [channel.port2]);
    };
    window.addEventListener('message', onHello);
    document.body.append(iframe);
    await probe.waitFor('loaded');
    const raw = (value: unknown) => ({ type: 'RAW', value });
    const attacks = [
      { id: 'set', type: 'SET', path: ['polluted'], value: raw(1) },
      { id: 'get', type: 'GET', path: ['describe'] },
      { id: 'construct', type: 'CONSTRUCT', path: ['sync'], argumentList: [] },
      { id: 'proto', type: 'APPLY', path: ['__proto__', 'polluted'], argumentList: [] },
      { id: 'unknown', type: 'APPLY', path: ['ready'], argumentList: [] },
      { id: 'badpath', type: 'APPLY', path: ['valueChanged'], argumentList: [raw(['__proto__', 'x']), raw(1)] },
      { id: 'badsync', type: 'APPLY', path: ['sync'], argumentList: [raw({ values: JSON.parse('{"__proto__":{"polluted":1}}') as unknown })] },
      { id: 'legit', type: 'APPLY', path: ['valueChanged'], argumentList: [raw(['card', 'title']), raw('from host')] },
    ];
    channel.port1.start();
    for (const attack of attacks) channel.port1.postMessage(attack);
    await waitUntil(() => Object.keys(replies).length === attacks.length, 'every reply');
    expect(replies['set']?.error?.code).to.equal('METHOD_NOT_ALLOWED');
    expect(replies['get']?.error?.code).to.equal('METHOD_NOT_ALLOWED');
    expect(replies['construct']?.error?.code).to.equal('METHOD_NOT_ALLOWED');
    expect(replies['proto']?.error?.code).to.equal('METHOD_NOT_ALLOWED');
    expect(replies['unknown']?.error?.code).to.equal('METHOD_NOT_ALLOWED');
    expect(replies['badpath']?.error?.code).to.equal('INVALID_PATH');
    expect(replies['badsync']?.error?.code).to.equal('INVALID_VALUE');
    expect(replies['legit']?.ok).to.equal(true);
    // Only the legitimate notification reached a listener.
    await probe.waitFor('valueChanged');
    expect(probe.of('valueChanged')).to.deep.equal([{ path: ['card', 'title'], value: 'from host' }]);
    expect((await probe.command('get', ['card', 'color'])).value).to.equal('#ff0000');
    expect((await probe.command('errors')).value).to.deep.equal([]);
    pollutionCheck();
  });
});
