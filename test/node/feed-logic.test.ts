import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkFeedItem, checkFeedUrl, feedDebugItems, feedItemSrc } from '../../host/feed/feed-items.js';
import { TokenBucket } from '../../host/feed/rate-limiter.js';
import { parseForwardedTouch, parseForwardedWheel } from '../../host/feed/forwarded-input.js';
import { SwipeTracker, type SwipeInput } from '../../host/feed/swipe-tracker.js';

const HEIGHT = 600;
const point = (y: number, x = 100, identifier = 0) => ({ identifier, x, y });
const start = (y: number, x = 100): SwipeInput => ({ type: 'start', touches: [point(y, x)], changedTouches: [point(y, x)] });
const move = (y: number, x = 100): SwipeInput => ({ type: 'move', touches: [point(y, x)], changedTouches: [point(y, x)] });
const end = (y: number, x = 100): SwipeInput => ({ type: 'end', touches: [], changedTouches: [point(y, x)] });

describe('SwipeTracker', () => {
  it('follows a vertical drag past the slop and decides on release by distance', () => {
    const tracker = new SwipeTracker();
    assert.deepEqual(tracker.handle('a', start(500), 0, HEIGHT), { kind: 'none' });
    assert.deepEqual(tracker.handle('a', move(495), 200, HEIGHT), { kind: 'none' }); // within the slop
    assert.deepEqual(tracker.handle('a', move(400), 400, HEIGHT), { kind: 'drag', offsetPx: -100 });
    assert.deepEqual(tracker.handle('a', move(300), 600, HEIGHT), { kind: 'drag', offsetPx: -200 });
    assert.deepEqual(tracker.handle('a', end(300), 1_000, HEIGHT), { kind: 'release', offsetPx: -200, decision: 'next' });
    assert.equal(tracker.source, null);
  });

  it('settles back on a short slow drag and moves on a short flick', () => {
    const slow = new SwipeTracker();
    slow.handle('a', start(300), 0, HEIGHT);
    slow.handle('a', move(340), 500, HEIGHT);
    assert.deepEqual(slow.handle('a', end(340), 1_000, HEIGHT), { kind: 'release', offsetPx: 40, decision: 'stay' });
    const flick = new SwipeTracker();
    flick.handle('a', start(300), 0, HEIGHT);
    flick.handle('a', move(330), 30, HEIGHT);
    assert.deepEqual(flick.handle('a', end(360), 60, HEIGHT), { kind: 'release', offsetPx: 60, decision: 'previous' });
  });

  it('leaves horizontal swipes and two-finger gestures to the template', () => {
    const tracker = new SwipeTracker();
    tracker.handle('a', start(300, 100), 0, HEIGHT);
    assert.deepEqual(tracker.handle('a', move(290, 200), 20, HEIGHT), { kind: 'none' });
    assert.deepEqual(tracker.handle('a', move(100, 200), 40, HEIGHT), { kind: 'none' });
    assert.deepEqual(tracker.handle('a', end(100, 200), 60, HEIGHT), { kind: 'none' });
    tracker.handle('a', start(300), 0, HEIGHT);
    tracker.handle('a', { type: 'start', touches: [point(300), point(300, 150, 1)], changedTouches: [point(300, 150, 1)] }, 5, HEIGHT);
    assert.deepEqual(tracker.handle('a', move(100), 40, HEIGHT), { kind: 'none' });
  });

  it('cancel() stops following the current gesture of that source only', () => {
    const tracker = new SwipeTracker();
    tracker.handle('a', start(500), 0, HEIGHT);
    tracker.handle('a', move(400), 20, HEIGHT);
    assert.equal(tracker.cancel('b'), false); // another template cannot take this gesture
    assert.equal(tracker.dragging, true);
    assert.equal(tracker.cancel('a'), true);
    assert.deepEqual(tracker.handle('a', move(100), 40, HEIGHT), { kind: 'none' });
    assert.deepEqual(tracker.handle('a', end(100), 60, HEIGHT), { kind: 'abandon' });
    // The next gesture is followed again.
    tracker.handle('a', start(500), 100, HEIGHT);
    assert.deepEqual(tracker.handle('a', move(400), 120, HEIGHT), { kind: 'drag', offsetPx: -100 });
  });

  it('ignores events of another source during a gesture', () => {
    const tracker = new SwipeTracker();
    tracker.handle('a', start(500), 0, HEIGHT);
    assert.deepEqual(tracker.handle('b', start(300), 5, HEIGHT), { kind: 'none' });
    assert.deepEqual(tracker.handle('b', move(100), 10, HEIGHT), { kind: 'none' });
    assert.deepEqual(tracker.handle('a', move(450), 20, HEIGHT), { kind: 'drag', offsetPx: -50 });
  });
});

describe('TokenBucket', () => {
  it('allows a burst, then the rate', () => {
    let now = 0;
    const bucket = new TokenBucket({ burst: 3, perSecond: 10, now: () => now });
    assert.deepEqual([bucket.take(), bucket.take(), bucket.take(), bucket.take()], [true, true, true, false]);
    now = 100; // one token back
    assert.deepEqual([bucket.take(), bucket.take()], [true, false]);
    now = 10_000; // never more than the burst
    assert.deepEqual([bucket.take(), bucket.take(), bucket.take(), bucket.take()], [true, true, true, false]);
  });
});

describe('feed items and URLs', () => {
  it('accepts only absolute http(s) URLs', () => {
    assert.equal(checkFeedUrl('https://a.example/x', 'navigate()').href, 'https://a.example/x');
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'blob:https://a/1', 'file:///x', '/relative', '', 42, 'h'.repeat(5_000)]) {
      assert.throws(() => checkFeedUrl(bad, 'navigate()'), { code: 'INVALID_ARGUMENT' });
    }
    assert.throws(() => checkFeedItem({ url: 'javascript:1' }), /http\(s\)/);
    assert.throws(() => checkFeedItem({ url: 'https://a/', context: 'nope' }), { code: 'INVALID_ARGUMENT' });
  });

  it("checks an item's values: scopes of plain data at valid paths", () => {
    const values = { card: { title: 'Remix', tags: ['a'] }, metadata: { projectId: 'p' } };
    assert.equal(checkFeedItem({ url: 'https://a/', values }).values, values);
    for (const bad of [
      null,
      [],
      'x',
      { card: [] },
      { card: { prototype: 1 } },
      JSON.parse('{"__proto__": {"a": 1}}') as unknown,
      { card: { x: Number.NaN } },
      { card: { x: 'y'.repeat(300_000) } },
    ]) {
      assert.throws(() => checkFeedItem({ url: 'https://a/', values: bad }), { code: 'INVALID_ARGUMENT' }, String(JSON.stringify(bad)).slice(0, 40));
    }
  });

  it('puts the viewing context in the template URL', () => {
    assert.equal(feedItemSrc({ url: 'https://t.example/?a=1', context: 'sticker' }), 'https://t.example/?a=1&context=sticker');
    assert.equal(feedItemSrc({ url: 'https://t.example/?context=admin', context: 'default' }), 'https://t.example/');
    assert.equal(feedItemSrc({ url: 'https://t.example/' }), 'https://t.example/');
  });

  it('builds the feedDebug feed: the template 10 times, without feedDebug', () => {
    const items = feedDebugItems('https://t.example/?feedDebug=true&x=1');
    assert.equal(items?.length, 10);
    assert.ok(items?.every((item) => item.url === 'https://t.example/?x=1'));
    assert.equal(new Set(items?.map((item) => item.id)).size, 10);
    assert.equal(feedDebugItems('https://t.example/?feedDebug=false'), null);
    assert.throws(() => feedDebugItems('javascript:x?feedDebug=true'), { code: 'INVALID_ARGUMENT' });
  });
});

describe('forwarded input guards', () => {
  const point = (clientX: number, clientY: number, screen?: [number, number]) => ({
    identifier: 1,
    clientX,
    clientY,
    ...(screen ? { screenX: screen[0], screenY: screen[1] } : {}),
  });
  const touch = (p: object) => ({ type: 'move', touches: [p], changedTouches: [p], timeStamp: 1 });

  it('takes coordinates and deltas a screen can have, up to ±1e6', () => {
    assert.equal(parseForwardedTouch(touch(point(-1e6, 1e6, [0, 844]))).touches[0]!.clientY, 1e6);
    assert.equal(parseForwardedWheel({ deltaX: 0, deltaY: -1e6, deltaMode: 0, timeStamp: 1 }).deltaY, -1e6);
  });

  it('refuses finite but absurd coordinates and deltas (1e308 overflowed a drag to NaN) with INVALID_ARGUMENT', () => {
    const refused = (run: () => unknown): void => assert.throws(run, (error: unknown) => (error as { code?: string }).code === 'INVALID_ARGUMENT');
    refused(() => parseForwardedTouch(touch(point(0, 1e308))));
    refused(() => parseForwardedTouch(touch(point(-1e7, 0))));
    refused(() => parseForwardedWheel({ deltaX: 0, deltaY: 1e308, deltaMode: 0, timeStamp: 1 }));
    refused(() => parseForwardedWheel({ deltaX: -Number.MAX_VALUE, deltaY: 0, deltaMode: 1, timeStamp: 1 }));
    // Screen coordinates are optional: out of range, the pair is dropped and the client ones kept.
    assert.deepEqual(parseForwardedTouch(touch(point(10, 20, [1e308, 0]))).touches[0], { identifier: 1, clientX: 10, clientY: 20 });
  });
});
