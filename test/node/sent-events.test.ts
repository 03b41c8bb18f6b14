// The ring of recently published cross-node events (signaling/store/sent-events.ts): a node's gap
// notice tells each sender once, only for its channel and time, and the ring stays bounded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SENT_MEMORY_MS, SentEvents } from '../../signaling/store/sent-events.js';

describe('sent events (who to tell when another node could not hear)', () => {
  it('tells the senders of the gap on that channel, each once, widened by the clock margin', () => {
    const sent = new SentEvents();
    const told: string[] = [];
    sent.record('a', () => told.push('a@1000'), 1_000);
    sent.record('b', () => told.push('b@1500'), 1_500);
    sent.record('a', () => told.push('a@5000'), 5_000);
    sent.record('a', () => told.push('a@9000'), 9_000);
    assert.equal(sent.tellBetween('a', 4_500, 5_500), 1);
    assert.deepEqual(told, ['a@5000']);
    // 1,000 ms of margin on each side: 1,000 is within a gap that starts at 1,900; 9,000 is not.
    assert.equal(sent.tellBetween('a', 1_900, 7_000), 1);
    assert.deepEqual(told, ['a@5000', 'a@1000']);
    // Told already: never twice.
    assert.equal(sent.tellBetween('a', 0, 10_000), 1);
    assert.deepEqual(told, ['a@5000', 'a@1000', 'a@9000']);
  });

  it('forgets what is older than its memory, and keeps at most 20,000 events', () => {
    const sent = new SentEvents();
    let told = 0;
    sent.record('a', () => told++, 0);
    sent.record('a', () => told++, SENT_MEMORY_MS + 1);
    assert.equal(sent.oldestMs, SENT_MEMORY_MS + 1);
    assert.equal(sent.tellBetween('a', 0, 0), 0);
    const many = new SentEvents();
    for (let i = 0; i < 25_000; i++) many.record('a', () => told++, 100_000 + i / 10);
    assert.equal(many.oldestMs, 100_000 + 5_000 / 10);
    assert.equal(many.tellBetween('a', 0, 200_000), 20_000);
  });
});
