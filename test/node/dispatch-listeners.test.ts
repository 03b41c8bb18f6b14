// The listener registry (issue 28): one registry (guest/dispatch/listeners.ts) for the session,
// the browser client and the backend client. Its rules first, then a real backend client on a
// real server: listeners added before connect() hear the connection, and a removed one does not.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ListenerList, NamedListenerLists } from '../../guest/dispatch/listeners.js';
import type { ConnectedClient, EventPayload } from '../../protocol/signaling.js';
import type { SignalingServer } from '../../signaling/index.js';
import { backend, codeOf, startServer, waitFor } from './signaling-support.js';

/** Runs `body` with console.error captured; returns what it printed. */
function capturingErrors(body: () => void): unknown[][] {
  const printed: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => printed.push(args);
  try {
    body();
  } finally {
    console.error = original;
  }
  return printed;
}

describe('listener registry', () => {
  it('the same callback added twice is two subscriptions; each remove takes away one, once', () => {
    const list = new ListenerList<(n: number) => void>('a test listener');
    const heard: number[] = [];
    const callback = (n: number): void => void heard.push(n);
    const removeFirst = list.add(callback);
    list.add(callback);
    list.notify(1);
    assert.deepEqual(heard, [1, 1]);
    removeFirst();
    removeFirst();
    list.notify(2);
    assert.deepEqual(heard, [1, 1, 2]);
    assert.equal(list.size, 1);
  });

  it('a listener that throws is logged by name and the others still hear it', () => {
    const list = new ListenerList<(n: number) => void>('a test listener');
    const heard: number[] = [];
    list.add(() => {
      throw new Error('listener bug');
    });
    list.add((n) => void heard.push(n));
    const printed = capturingErrors(() => list.notify(7));
    assert.deepEqual(heard, [7]);
    assert.equal(printed.length, 1);
    assert.equal(printed[0]?.[0], 'platform-kit: a test listener threw');
  });

  it('a listener added or removed while listeners are called takes effect from the next notification', () => {
    const list = new ListenerList<() => void>('a test listener');
    const calls: string[] = [];
    let removeSecond = (): void => undefined;
    list.add(() => {
      calls.push('first');
      removeSecond();
      list.add(() => void calls.push('added'));
    });
    removeSecond = list.add(() => void calls.push('second'));
    list.notify();
    assert.deepEqual(calls, ['first', 'second']);
    calls.length = 0;
    list.notify();
    assert.deepEqual(calls, ['first', 'added']);
  });

  it('notifyEach gives each listener its own arguments', () => {
    const list = new ListenerList<(items: number[]) => void>('a test listener');
    const seen: number[][] = [];
    list.add((items) => {
      items.reverse();
      seen.push(items);
    });
    list.add((items) => void seen.push(items));
    const items = [1, 2, 3];
    list.notifyEach((callback) => callback([...items]));
    assert.deepEqual(seen, [
      [3, 2, 1],
      [1, 2, 3],
    ]);
  });

  it('refuses what is not a function with INVALID_ARGUMENT, and forgets a name with no listener left', async () => {
    const lists = new NamedListenerLists<(n: number) => void>('an event listener');
    assert.equal(await codeOf(Promise.resolve().then(() => lists.add('tick', 'not a function' as unknown as () => void))), 'INVALID_ARGUMENT');
    // Hostile use: many names added and removed leave nothing behind.
    for (let index = 0; index < 10_000; index++) lists.add(`name-${index}`, () => undefined)();
    assert.equal(lists.get('name-0'), undefined);
    assert.equal(lists.get('name-9999'), undefined);
    const remove = lists.add('tick', () => undefined);
    assert.equal(lists.get('tick')?.size, 1);
    remove();
    assert.equal(lists.get('tick'), undefined);
    // A removal after the name was emptied and added again leaves the new list alone.
    lists.add('tick', () => undefined);
    remove();
    assert.equal(lists.get('tick')?.size, 1);
  });
});

describe('backend client: listeners added before connect()', () => {
  let server: SignalingServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.close();
  });

  it('hear presence, events and their removal is kept', async () => {
    const listener = backend(server);
    const sender = backend(server);
    const presence: ConnectedClient[][] = [];
    const events: EventPayload[] = [];
    const removed: EventPayload[] = [];
    listener.onConnectedClientsChanged((clients) => void presence.push([...clients]));
    listener.on('note', (payload) => void events.push(payload));
    const off = listener.on('note', (payload) => void removed.push(payload));
    off();
    assert.throws(() => listener.on('note', 42 as unknown as () => void), { code: 'INVALID_ARGUMENT' });
    try {
      const joined = await listener.connect({ shardName: 'listeners' });
      await waitFor(() => presence.some((clients) => clients.some((client) => client.clientId === joined.clientId)), 'own presence');
      const other = await sender.connect({ shardName: 'listeners' });
      await waitFor(() => presence.some((clients) => clients.some((client) => client.clientId === other.clientId)), 'the sender in presence', 15_000);
      await sender.emitEvent('note', { n: 1 });
      await waitFor(() => events.length === 1, 'the event', 15_000);
      assert.deepEqual(events, [{ n: 1 }]);
      assert.deepEqual(removed, []);
    } finally {
      await Promise.all([listener.disconnect(), sender.disconnect()]);
    }
  });
});
