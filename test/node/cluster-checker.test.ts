// The fault suite's checker on histories made by hand: it must see each kind of
// violation, and excuse only what its rules say (an event emitted before the
// receiver joined, an event whose sender was told), so a green fault run means
// the invariants held and not that the checker looked away.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capacityInClients, capacityInSamples, eventsExactlyOnce, oneShardPerMember, presenceConverged, report, type ClientHistory } from './cluster-checker.js';

function client(name: string, clientId: string, extra: Partial<ClientHistory> = {}): ClientHistory {
  return {
    name,
    joins: [{ atMs: 100, clientId, shardName: 's1', resumed: false }],
    drops: [],
    sent: [],
    told: new Set(),
    received: [],
    finalList: [],
    connected: true,
    ...extra,
  };
}

describe('cluster checker', () => {
  it('capacity: a shard over capacity in a Redis sample or an info sample is named with its size and time; at capacity is fine', () => {
    const samples = [
      { atMs: 10, source: 'redis', sizes: new Map([['s1', 10]]), members: new Map([['s1', Array.from({ length: 10 }, (_, i) => `c${i}`)]]) },
      { atMs: 20, source: 'redis', sizes: new Map([['s1', 12]]) },
      { atMs: 30, source: 'info n2', sizes: new Map([['s1', 11]]) },
    ];
    const redis = capacityInSamples(samples, 10, 'redis');
    assert.deepEqual(redis.violations, ['redis: shard s1 over capacity 10: 12 at +20 ms, first over at +20 ms, in 1 samples']);
    assert.deepEqual(capacityInSamples(samples, 10, 'info').violations, ['info n2: shard s1 over capacity 10: 11 at +30 ms, first over at +30 ms, in 1 samples']);
    assert.equal(capacityInSamples(samples.slice(0, 1), 10, 'redis').violations.length, 0);
    const lists = capacityInClients([{ atMs: 5, client: 'a', shardName: 's1', length: 11, from: 'presence' }], 1, 10);
    assert.match(lists.violations[0]!, /client a held 11 members of shard s1/);
  });

  it('one shard per member: an id under two shards in one sample', () => {
    const verdict = oneShardPerMember([
      {
        atMs: 7,
        source: 'redis',
        sizes: new Map(),
        members: new Map([
          ['s1', ['x', 'y']],
          ['s2', ['y']],
        ]),
      },
    ]);
    assert.deepEqual(verdict.violations, ['client y is a member of 2 shards at once (s1, s2) in Redis at +7 ms']);
  });

  it('presence: a list that misses an online member, or lists one that is not, fails; an equal list passes', () => {
    const online = new Map([['s1', ['a', 'b', 'c']]]);
    const late = client('late', 'c', { joins: [{ atMs: 150, clientId: 'c', shardName: 's1', resumed: false }], finalList: ['a', 'b', 'c'] });
    const verdict = presenceConverged([client('a', 'a', { finalList: ['a', 'b'] }), client('b', 'b', { finalList: ['a', 'b', 'c', 'gone'] }), late], online);
    assert.equal(verdict.violations.length, 2);
    assert.match(verdict.violations[0]!, /client a .* holds 2, Redis has 3 online; it misses 1 \(c: late joined \+150 ms\)/);
    assert.match(verdict.violations[1]!, /lists 1 that Redis does not have online \(gone: /);
  });

  it('events: a loss and a duplicate between members that stayed are reported; events from before the join and told ones are excused; a dropped client is not a stayer', () => {
    const sent = [1, 2, 3, 4].map((k) => ({ k, atMs: k * 100, clientId: 's' }));
    const sender = client('S', 's', { sent, told: new Set([4]) });
    // Joined at 250: k = 1 and 2 were emitted before, k = 3 must come once, k = 4 was told.
    const receiver = client('R', 'r', { joins: [{ atMs: 250, clientId: 'r', shardName: 's1', resumed: false }], received: [{ from: 's', k: 2 }] });
    const lost = eventsExactlyOnce([sender, receiver]);
    assert.deepEqual(lost.violations, ['R (r) in shard s1 lost 1 events of S (s): k = 3']);
    assert.equal(lost.told, 1);
    const twice = eventsExactlyOnce([
      sender,
      {
        ...receiver,
        received: [
          { from: 's', k: 1 },
          { from: 's', k: 1 },
          { from: 's', k: 3 },
        ],
      },
    ]);
    assert.deepEqual(twice.violations, ['R (r) in shard s1 got events of S (s) more than once: 1×2']);
    const dropped = eventsExactlyOnce([sender, { ...receiver, drops: [300] }]);
    assert.deepEqual(dropped.violations, []);
    const otherShard = eventsExactlyOnce([sender, { ...receiver, joins: [{ atMs: 250, clientId: 'r', shardName: 's2', resumed: false }] }]);
    assert.deepEqual(otherShard.violations, []);
    assert.match(report([lost]), /✗ no event lost or duplicated .*\n {4}R \(r\) in shard s1 lost 1 events/);
  });
});
