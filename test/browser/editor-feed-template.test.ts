/**
 * A template written for the feed, opened in the editor (issue 17): it calls
 * FeedSdk.load() there too, as the demo's templates do. The editor takes no
 * forwarded input, so the template stops forwarding its wheel, touches and
 * keys after the editor's first UNSUPPORTED, and says nothing about it:
 * nothing went wrong.
 */
import { expect } from '@esm-bundle/chai';
import { executeServerCommand } from '@web/test-runner-commands';
import { mountEditor, type EditorHarness } from './support/editor.js';
import { sleep, waitUntil } from './support/probe.js';

describe('<platform-editor> with a template written for the feed', () => {
  let harness: EditorHarness;
  afterEach(() => harness?.dispose());

  it('load() resolves; the wheel stays the template’s; no forwarding failure is logged', async () => {
    harness = await mountEditor({ type: 'instant', query: { feed: '1' } });
    const { probe, editor } = harness;
    const [loaded] = await probe.waitFor('feedLoad');
    expect(loaded?.['ok'], JSON.stringify(loaded)).to.equal(true);

    // Real wheel turns over the template (playwright's mouse.wheel, test/wtr/feed.mjs).
    const box = editor.frame!.iframe.getBoundingClientRect();
    const at = { x: Math.round(box.left + box.width / 2), y: Math.round(box.top + box.height / 2) };
    await executeServerCommand('feed-wheel', { ...at, deltas: [120, 120, -120], delayMs: 30 });
    await probe.waitFor('wheel', 3);
    // A forwarded wheel's refusal would come back within a round trip of the link; give it many.
    await sleep(300);

    const debug = probe.of('debug').map((line) => String(line['message']));
    // load() did nothing here, and says so once; no forwarded event failed.
    expect(
      debug.filter((line) => line.includes('was not delivered to the feed')),
      debug.join('\n'),
    ).to.deep.equal([]);
    expect(debug.filter((line) => line.includes('load()')).length, debug.join('\n')).to.be.at.most(1);
    await waitUntil(() => editor.session?.remixing === true, 'the editor still remixing');
  });
});
