// A template built with no project id (issue 25, commit cde35a0): in a host that names none,
// connect() rejects with INVALID_CONFIG, onError hears it, and nothing is thrown uncaught (it
// threw uncaught before, and the page stayed on "Connecting…"); in a host that names one
// (TemplateFrameOptions.projectId), it joins that project. Across a real cross-origin iframe,
// on the real signaling server (test/wtr/signaling.mjs, project "demo").
import { expect } from '@esm-bundle/chai';
import { TemplateFrame } from '../../host/index.js';
import { signalingUrl, TEMPLATE_ORIGIN } from './support/dispatch-member.js';

interface Outcome {
  readonly connected: boolean;
  readonly shardName: string;
  readonly code: string;
  readonly message?: string;
  readonly heard: readonly { code: string; message: string }[];
  readonly uncaught: readonly string[];
}

describe('Platform.dispatch with no project id in the build', () => {
  let frame: TemplateFrame | undefined;
  afterEach(() => frame?.destroy());

  async function run(projectId?: string): Promise<Outcome> {
    const url = new URL('/test/fixtures/dispatch/no-project-id.html', TEMPLATE_ORIGIN);
    url.searchParams.set('parent', location.origin);
    url.searchParams.set('server', await signalingUrl());
    const reported = new Promise<Outcome>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the template reported nothing in 15 s')), 15_000);
      window.addEventListener('message', function listener(event: MessageEvent) {
        const data = event.data as { noProjectId?: Outcome } | null;
        if (event.origin !== TEMPLATE_ORIGIN || !data?.noProjectId) return;
        window.removeEventListener('message', listener);
        clearTimeout(timer);
        resolve(data.noProjectId);
      });
    });
    frame = new TemplateFrame({ src: url.href, container: document.body, handlers: {}, ...(projectId === undefined ? {} : { projectId }) });
    return reported;
  }

  it('in a host that names none: connect() rejects INVALID_CONFIG through onError, nothing uncaught', async () => {
    const outcome = await run();
    expect(outcome.connected).to.equal(false);
    expect(outcome.code).to.equal('INVALID_CONFIG');
    expect(outcome.message).to.match(/no project id/);
    expect(outcome.heard.map((error) => error.code)).to.deep.equal(['INVALID_CONFIG']);
    expect(outcome.uncaught).to.deep.equal([]);
  });

  it("in a host that names one: it joins the host's project", async () => {
    const outcome = await run('demo');
    expect(outcome, JSON.stringify(outcome)).to.include({ connected: true, code: '' });
    expect(outcome.shardName).to.be.a('string').and.not.equal('');
    expect(outcome.heard).to.deep.equal([]);
    expect(outcome.uncaught).to.deep.equal([]);
  });
});
