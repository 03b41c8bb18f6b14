import { expect } from '@esm-bundle/chai';
import { TemplateFrame, type HostHandlers } from '../../host/index.js';
import { createIdentityHandler } from '../../host/identity.js';
import type { IdentityTokenResult } from '../../protocol/link.js';
import { HOST_ORIGIN, Probe, TEMPLATE_ORIGIN } from './support/probe.js';

function templateUrl(query: Record<string, string> = {}): string {
  const url = new URL('/test/fixtures/identity/template.html', TEMPLATE_ORIGIN);
  url.searchParams.set('parent', HOST_ORIGIN);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return url.toString();
}

/** The host page's backend call: the admin key stays on the server (test/wtr/identity.mjs). */
async function fetchToken(user: string): Promise<IdentityTokenResult> {
  const response = await fetch(`/__identity/token?user=${encodeURIComponent(user)}`);
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}`);
  return (await response.json()) as IdentityTokenResult;
}

describe('Platform.identity.getToken across a real cross-origin iframe', () => {
  let frame: TemplateFrame | undefined;
  let probe: Probe | undefined;
  afterEach(() => {
    frame?.destroy();
    probe?.dispose();
  });

  async function open(handlers: HostHandlers): Promise<Probe> {
    frame = new TemplateFrame({ src: templateUrl(), container: document.body, handlers });
    const current = frame;
    probe = new Probe(() => current.iframe.contentWindow);
    // The guest links on first use: getToken() itself makes the link.
    await probe.waitFor('loaded');
    return probe;
  }

  it('resolves a real user token; the owner is presumed admin; a backend resolves it', async () => {
    const probe = await open({ getIdentityToken: createIdentityHandler({ fetchToken: () => fetchToken('alice') }) });
    const reply = await probe.command('getToken');
    expect(reply.ok, JSON.stringify(reply.value)).to.equal(true);
    const result = reply.value as IdentityTokenResult;
    expect(result.presumedRole).to.equal('admin');
    expect(result.presumedAttributes).to.deep.equal({ username: 'alice' });
    expect(result.userToken.split('.')).to.have.length(3);
    const verified = await fetch('/__identity/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: result.userToken }) });
    expect(verified.status).to.equal(200);
    expect(await verified.json()).to.include({ id: 'alice', role: 'admin' });
  });

  it('presumes user for anyone else', async () => {
    const probe = await open({ getIdentityToken: createIdentityHandler({ fetchToken: () => fetchToken('carol') }) });
    const reply = await probe.command('getToken');
    expect((reply.value as IdentityTokenResult).presumedRole).to.equal('user');
  });

  it('fails with UNSUPPORTED when the host serves no identity', async () => {
    const probe = await open({});
    const reply = await probe.command('getToken');
    expect(reply.ok).to.equal(false);
    expect((reply.value as { code: string }).code).to.equal('UNSUPPORTED');
  });

  it("fails with a coded error when the host's backend fails or answers garbage", async () => {
    const failing = await open({ getIdentityToken: createIdentityHandler({ fetchToken: () => Promise.reject(new Error('logged out')) }) });
    expect(((await failing.command('getToken')).value as { code: string }).code).to.equal('UNAUTHORIZED');
    frame?.destroy();
    probe?.dispose();
    const garbage = await open({ getIdentityToken: createIdentityHandler({ fetchToken: async () => ({ userToken: 42 }) as unknown as IdentityTokenResult }) });
    expect(((await garbage.command('getToken')).value as { code: string }).code).to.equal('INTERNAL');
  });

  it('checks the answer on the guest side too: a raw host handler that sends garbage gives INVALID_MESSAGE', async () => {
    const probe = await open({ getIdentityToken: () => ({ userToken: 'x', presumedRole: 'root', presumedAttributes: {} }) });
    const reply = await probe.command('getToken');
    expect((reply.value as { code: string }).code).to.equal('INVALID_MESSAGE');
  });
});
