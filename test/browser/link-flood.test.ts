import { expect } from '@esm-bundle/chai';
import { defineHostElements, RemixSession, TemplateFrame, type PlatformError, type RefusedEvent } from '../../host/index.js';
import { fixtureUrl, Probe, sleep, waitUntil } from './support/probe.js';

const CUSTOMIZATION = {
  version: 1 as const,
  values: { card: { title: 'Safe' } },
  editor: [{ key: 'card', fields: [{ key: 'title', type: 'text' }] }],
};

/** What {@link watchMainThread} saw: the longest wait of a 0 ms timer and the JS heap's peak. */
interface MainThreadReport {
  /** Longest time between two consecutive ticks of a 0 ms timer loop, in ms. */
  readonly maxGapMs: number;
  /** The largest performance.memory.usedJSHeapSize sampled (null where the browser gives none). */
  readonly heapPeakBytes: number | null;
}

function usedHeapBytes(): number | null {
  const memory = (performance as Performance & { memory?: { usedJSHeapSize?: number } }).memory;
  return typeof memory?.usedJSHeapSize === 'number' ? memory.usedJSHeapSize : null;
}

/**
 * Liveness of this page's main thread: a timer loop that notes the longest
 * gap between its ticks (a blocked thread runs no timers) and samples the
 * heap at every tick. Not a speed measure: the bound is generous.
 */
function watchMainThread(): { stop(): MainThreadReport } {
  let last = performance.now();
  let maxGapMs = 0;
  let heapPeakBytes = usedHeapBytes();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = (): void => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    const heap = usedHeapBytes();
    if (heap !== null && heapPeakBytes !== null) heapPeakBytes = Math.max(heapPeakBytes, heap);
    timer = setTimeout(tick, 0);
  };
  timer = setTimeout(tick, 0);
  return {
    stop() {
      clearTimeout(timer);
      tick();
      clearTimeout(timer);
      return { maxGapMs, heapPeakBytes };
    },
  };
}

describe('the host bounds what a guest may send', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  });

  function open(fixture: string, query: Record<string, string | number> = {}) {
    const frame = new TemplateFrame({ src: fixtureUrl(fixture, query), container: document.body });
    const session = new RemixSession({ customization: CUSTOMIZATION });
    const detach = session.attach(frame);
    const probe = new Probe(() => frame.iframe.contentWindow);
    cleanups.push(
      () => probe.dispose(),
      detach,
      () => frame.destroy(),
    );
    const unlinked: PlatformError[] = [];
    const errors: PlatformError[] = [];
    const refused: RefusedEvent[] = [];
    const links: boolean[] = [];
    // 'unlinked' is new: on a frame without it the listener never fires and the test fails on what it expects.
    (frame.on as (name: string, listener: (payload: { error: PlatformError }) => void) => () => void)('unlinked', ({ error }) => unlinked.push(error));
    frame.on('error', (error) => errors.push(error));
    frame.on('refused', (event) => refused.push(event));
    frame.on('link', ({ relinked }) => links.push(relinked));
    return { frame, session, probe, unlinked, errors, refused, links };
  }

  it('a guest flooding 200,000 allowed calls is unlinked with RATE_LIMITED while the host page stays responsive', async function () {
    this.timeout(90_000);
    const { frame, session, probe, unlinked, errors, links } = open('flood', { count: 200_000, chunk: 5_000 });
    let changes = 0;
    session.on('valuechange', () => changes++);
    await probe.waitFor('linked', 1, 10_000);
    const watch = watchMainThread();
    const [done] = await probe.waitFor('done', 1, 80_000);
    const report = watch.stop();

    // Liveness, not speed: a blocked page shows gaps of seconds.
    expect(report.maxGapMs, 'longest main-thread gap in ms').to.be.below(500);
    expect(
      unlinked.map((error) => error.code),
      JSON.stringify({ done, state: frame.state }),
    ).to.deep.equal(['RATE_LIMITED']);
    expect(unlinked[0]?.message).to.match(/^platform-kit: /);
    // The existing error path hears it too (the editor reports frame errors from there).
    expect(errors.map((error) => error.code)).to.include('RATE_LIMITED');
    expect(frame.state).to.equal('unlinked');
    // Only a burst reached the session, and nothing after the unlink.
    expect(changes).to.be.above(0);
    expect(changes).to.be.below(10_000);
    const afterUnlink = changes;
    await sleep(300);
    expect(changes).to.equal(afterUnlink);
    // The guest's second hello (a new id) did not get it a fresh link.
    expect(links).to.deep.equal([false]);
    expect(done?.['welcomes']).to.equal(1);
    const codes = done?.['codes'] as Record<string, number>;
    expect(codes['RATE_LIMITED'], 'the call that went over was answered RATE_LIMITED').to.equal(1);
    // Calls after the host's limit was crossed: dropped, never answered.
    expect(done?.['replies']).to.be.below(10_000);
    await frame.whenLinked().then(
      () => expect.fail('an unlinked frame is not linked'),
      (error: unknown) => expect((error as PlatformError).code).to.equal('RATE_LIMITED'),
    );
  });

  it('ten 50 MB setValue calls are refused (VALUE_TOO_LARGE) or unlink the guest (RATE_LIMITED); the page stays responsive, its heap bounded', async function () {
    this.timeout(120_000);
    // Measured before the frame exists: the page's own heap is the starting point.
    const heapBefore = usedHeapBytes();
    const { frame, session, probe, unlinked } = open('big-values', { count: 10, mb: 50, waitMs: 4_000 });
    let changes = 0;
    session.on('valuechange', () => changes++);
    // Watched from before the first big call can arrive.
    const watch = watchMainThread();
    await probe.waitFor('linked', 1, 20_000);
    const [done] = await probe.waitFor('done', 1, 110_000);
    const report = watch.stop();

    const outcomes = done?.['outcomes'] as string[];
    expect(outcomes.length).to.be.above(0);
    const refusedAtOnce = outcomes.filter((outcome) => outcome === 'VALUE_TOO_LARGE').length;
    if (refusedAtOnce < 10) {
      // The guest stopped early: only because the host unlinked it.
      expect(
        unlinked.map((error) => error.code),
        JSON.stringify({ done, state: frame.state }),
      ).to.deep.equal(['RATE_LIMITED']);
      expect(
        outcomes.slice(0, -1).every((outcome) => outcome === 'VALUE_TOO_LARGE'),
        outcomes.join(),
      ).to.equal(true);
      expect(outcomes.at(-1)).to.equal('RATE_LIMITED');
      expect(frame.state).to.equal('unlinked');
    }
    expect(changes).to.equal(0);
    expect(session.get(['card', 'title'])).to.equal('Safe');
    expect(report.maxGapMs, 'longest main-thread gap in ms').to.be.below(500);
    if (heapBefore !== null && report.heapPeakBytes !== null) {
      const growthMb = (report.heapPeakBytes - heapBefore) / (1024 * 1024);
      // One 50 MB argument may be alive at a time; never a JSON copy of it, nor ten.
      expect(growthMb, 'heap growth in MB').to.be.below(150);
    }
  });

  it('a value over the per-call limit is refused at the door with VALUE_TOO_LARGE, before any handler, and the link stays', async function () {
    this.timeout(30_000);
    const { frame, session, probe, unlinked, refused } = open('big-values', { count: 3, mb: 1, waitMs: 4_000 });
    const refusedValues: unknown[] = [];
    session.on('refusedvalue', (event) => refusedValues.push(event));
    const [done] = await probe.waitFor('done', 1, 20_000);
    expect(done?.['outcomes']).to.deep.equal(['VALUE_TOO_LARGE', 'VALUE_TOO_LARGE', 'VALUE_TOO_LARGE']);
    // Refused at the door: the session's handler never saw them.
    expect(refused.map((event) => event.code)).to.deep.equal(['VALUE_TOO_LARGE', 'VALUE_TOO_LARGE', 'VALUE_TOO_LARGE']);
    expect(refusedValues).to.deep.equal([]);
    expect(unlinked).to.deep.equal([]);
    expect(frame.state).to.equal('linked');
    expect(session.get(['card', 'title'])).to.equal('Safe');
  });

  it('the limits are options of the frame, checked when it is made', () => {
    for (const bad of [0, -1, Number.NaN]) {
      expect(() => new TemplateFrame({ src: fixtureUrl('probe'), maxCallsPerSecond: bad }), String(bad))
        .to.throw()
        .with.property('code', 'INVALID_ARGUMENT');
      expect(() => new TemplateFrame({ src: fixtureUrl('probe'), maxBytesPerSecond: bad }), String(bad))
        .to.throw()
        .with.property('code', 'INVALID_ARGUMENT');
      expect(() => new TemplateFrame({ src: fixtureUrl('probe'), maxCallBytes: bad }), String(bad))
        .to.throw()
        .with.property('code', 'INVALID_ARGUMENT');
    }
  });

  it('the limits come from the options: 300 calls at once against a burst of 50 unlink the guest', async function () {
    this.timeout(30_000);
    // The limits come from the options: a flood of 300 calls against a burst of 50.
    const frame = new TemplateFrame({ src: fixtureUrl('flood', { count: 300, chunk: 300 }), container: document.body, maxCallsPerSecond: 10, maxCallsBurst: 50 });
    const probe = new Probe(() => frame.iframe.contentWindow);
    cleanups.push(
      () => probe.dispose(),
      () => frame.destroy(),
    );
    const unlinked: PlatformError[] = [];
    (frame.on as (name: string, listener: (payload: { error: PlatformError }) => void) => () => void)('unlinked', ({ error }) => unlinked.push(error));
    const [done] = await probe.waitFor('done', 1, 20_000);
    expect(
      unlinked.map((error) => error.code),
      JSON.stringify({ done, state: frame.state }),
    ).to.deep.equal(['RATE_LIMITED']);
    // The frame has no setValue handler: the calls it let through were answered UNSUPPORTED.
    const codes = done?.['codes'] as Record<string, number>;
    expect(codes['UNSUPPORTED']).to.be.within(45, 60);
    expect(codes['RATE_LIMITED']).to.equal(1);
  });

  it('<platform-editor> and <platform-feed> report the unlink through their error events', async function () {
    this.timeout(60_000);
    defineHostElements();
    const src = fixtureUrl('flood', { count: 20_000, chunk: 5_000 });
    const editor = document.createElement('platform-editor');
    editor.src = src;
    const editorErrors: string[] = [];
    editor.addEventListener('platform-editor-error', (event) => editorErrors.push(event.detail.error.code));
    const feed = document.createElement('platform-feed');
    feed.setAttribute('style', 'display: block; width: 360px; height: 640px;');
    feed.items = [{ url: src }];
    const feedErrors: string[] = [];
    feed.addEventListener('feed-error', (event) => feedErrors.push((event as CustomEvent<{ error: PlatformError }>).detail.error.code));
    document.body.append(editor, feed);
    cleanups.push(
      () => editor.remove(),
      () => feed.remove(),
    );
    await waitUntil(() => editorErrors.includes('RATE_LIMITED') && feedErrors.includes('RATE_LIMITED'), 'both elements to report RATE_LIMITED', 40_000);
    expect(editor.frame?.state).to.equal('unlinked');
  });
});
