// <platform-editor>'s getIdentityToken (issue 17): a template being remixed
// calls Platform.identity.getToken() and the editor's host answers, as
// <platform-feed>'s does. The token is real: the identity server of
// test/wtr/identity.mjs issues it for the host's backend.
import { expect } from '@esm-bundle/chai';
import { createIdentityHandler } from '../../host/identity.js';
import type { IdentityTokenResult } from '../../protocol/link.js';
import { mountEditor, type EditorHarness } from './support/editor.js';

async function fetchToken(user: string): Promise<IdentityTokenResult> {
  const response = await fetch(`/__identity/token?user=${encodeURIComponent(user)}`);
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}`);
  return (await response.json()) as IdentityTokenResult;
}

describe('<platform-editor> getIdentityToken', () => {
  let harness: EditorHarness;
  afterEach(() => harness?.dispose());

  it("answers the template's Platform.identity.getToken() with the host's token", async () => {
    harness = await mountEditor({ type: 'instant' });
    let calls = 0;
    const handler = createIdentityHandler({ fetchToken: () => fetchToken('alice') });
    harness.editor.getIdentityToken = () => {
      calls++;
      return handler();
    };
    await harness.editor.updateComplete;
    const reply = await harness.probe.command('getToken');
    expect(reply.ok, JSON.stringify(reply.value)).to.equal(true);
    const result = reply.value as IdentityTokenResult;
    expect(result.presumedAttributes).to.deep.equal({ username: 'alice' });
    expect(result.userToken.split('.')).to.have.length(3);
    expect(calls).to.equal(1);
  });

  it('without one the template hears UNSUPPORTED; set later, the next call is answered (no reload); unset, UNSUPPORTED again', async () => {
    harness = await mountEditor({ type: 'instant' });
    const { editor, probe } = harness;
    const before = await probe.command('getToken');
    expect(before.ok).to.equal(false);
    expect((before.value as { code: string }).code).to.equal('UNSUPPORTED');
    const iframe = editor.frame?.iframe;
    editor.getIdentityToken = () => fetchToken('carol');
    await editor.updateComplete;
    const after = await probe.command('getToken');
    expect(after.ok, JSON.stringify(after.value)).to.equal(true);
    expect((after.value as IdentityTokenResult).presumedRole).to.equal('user');
    expect(editor.frame?.iframe, 'the same frame').to.equal(iframe);
    editor.getIdentityToken = null;
    await editor.updateComplete;
    expect(((await probe.command('getToken')).value as { code: string }).code).to.equal('UNSUPPORTED');
  });
});
