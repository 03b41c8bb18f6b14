import { expect } from '@esm-bundle/chai';
import { RemixSession, TemplateFrame } from '../../host/index.js';
import { fixtureUrl, Probe } from './support/probe.js';

const CUSTOMIZATION = {
  version: 1 as const,
  values: { card: { title: 'Safe' }, extra: { note: 'built only' } },
  editor: [{ key: 'card', fields: [{ key: 'title', type: 'text' }] }],
};

/** Every name Object.prototype has (toString, hasOwnProperty, __proto__, constructor, __lookupGetter__…). */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

function pollutionCheck(): void {
  expect(({} as Record<string, unknown>)['polluted']).to.equal(undefined);
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).to.equal(false);
}

describe('RemixSession refuses paths the template never declared', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  });

  it('the host cannot set undeclared or prototype-named scopes and keys: INVALID_PATH, nothing stored, nobody told', () => {
    const session = new RemixSession({ customization: CUSTOMIZATION });
    const heard: unknown[] = [];
    session.on('valuechange', (event) => heard.push(event));
    const paths: string[][] = [
      ['other', 'title'],
      ['card', 'subtitle'],
      ['other', 'title', 'deep'],
    ];
    for (const name of PROTOTYPE_NAMES) paths.push([name, 'title'], ['card', name], ['extra', name]);
    for (const path of paths) {
      expect(() => session.setValue(path, 'x'), path.join('.'))
        .to.throw()
        .with.property('code', 'INVALID_PATH');
    }
    expect(heard).to.deep.equal([]);
    expect(Object.keys(session.overrides)).to.deep.equal([]);
    // What is declared still works: an editor field, and a key the built values have.
    session.setValue(['card', 'title'], 'Edited');
    session.setValue(['extra', 'note'], 'edited too');
    expect(session.overrides).to.deep.equal({ card: { title: 'Edited' }, extra: { note: 'edited too' } });
    expect(heard).to.have.length(2);
    // Reading a prototype name finds nothing, not Object.prototype's function.
    expect(session.get(['card', 'toString'])).to.equal(undefined);
    expect(session.get(['toString', 'x'])).to.equal(undefined);
    expect(String(session.overrides.toString)).to.equal('undefined');
    pollutionCheck();
  });

  it('prototype-named scopes and keys are refused even before the customization is known, also in the starting values', () => {
    const session = new RemixSession();
    for (const name of ['toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf']) {
      expect(() => session.setValue([name, 'x'], 1), name)
        .to.throw()
        .with.property('code', 'INVALID_PATH');
      expect(() => session.setValue(['card', name], 1), name)
        .to.throw()
        .with.property('code', 'INVALID_PATH');
    }
    expect(() => new RemixSession({ values: { card: { hasOwnProperty: 'x' } } }))
      .to.throw()
      .with.property('code', 'INVALID_PATH');
    expect(() => new RemixSession({ values: JSON.parse('{"toString": {"x": 1}}') as never }))
      .to.throw()
      .with.property('code', 'INVALID_PATH');
    expect(Object.keys(session.overrides)).to.deep.equal([]);
  });

  it('a cross-origin guest calling setValue at undeclared and prototype-named paths gets INVALID_PATH; nothing is stored', async () => {
    const frame = new TemplateFrame({ src: fixtureUrl('hostile-paths'), container: document.body });
    const session = new RemixSession({ customization: CUSTOMIZATION });
    const probe = new Probe(() => frame.iframe.contentWindow);
    cleanups.push(
      () => probe.dispose(),
      session.attach(frame),
      () => frame.destroy(),
    );
    const heard: unknown[] = [];
    session.on('valuechange', (event) => heard.push(event));
    const [report] = await probe.waitFor('paths');
    const replies = report?.['replies'] as Record<string, { ok: boolean; error?: { code: string } }>;
    expect(replies['declared']).to.deep.equal({ ok: true, value: undefined });
    for (const [id, reply] of Object.entries(replies)) {
      if (id !== 'declared') expect(reply.error?.code, id).to.equal('INVALID_PATH');
    }
    expect(Object.keys(replies)).to.have.length(13);
    expect(heard).to.have.length(1);
    expect(session.overrides).to.deep.equal({ card: { title: 'Declared' } });
    pollutionCheck();
  });
});
