// A template of the original @withkoji/dispatch (0.0.x) through the compat entry
// (platform-kit/compat/dispatch; issue 24), in cross-origin iframes on the real signaling server:
// the constructor's { projectId, shardName, maxConnectionsPerShard } reach the join, presence
// arrives as { connectedClients } on DISPATCH_EVENT.CONNECTED_CLIENTS_CHANGED, CONNECTED tells the
// client id and shard, events flow, and dropped promises never surface as uncaught.
import { expect } from '@esm-bundle/chai';
import { signalingUrl, sleep, TEMPLATE_ORIGIN, waitUntil, type Report } from './support/dispatch-member.js';

let counter = 0;

/** One page of the original template, in an iframe on the template origin. */
class OriginalMember {
  readonly tag = `orig${++counter}`;
  readonly iframe = document.createElement('iframe');
  readonly reports: Report[] = [];
  readonly #replies = new Map<number, (value: unknown) => void>();
  #nextId = 1;
  readonly #onMessage = (event: MessageEvent): void => {
    if (event.origin !== TEMPLATE_ORIGIN || event.source !== this.iframe.contentWindow) return;
    const data = event.data as { member: string; reply?: number; kind?: string; data?: unknown; value?: unknown };
    if (data.member !== this.tag) return;
    if (typeof data.reply === 'number') this.#replies.get(data.reply)?.(data.value);
    else if (data.kind) this.reports.push({ kind: data.kind, data: data.data });
  };

  constructor(server: string, shard: string) {
    const query = new URLSearchParams({ parent: location.origin, tag: this.tag, server, shard });
    this.iframe.src = `${TEMPLATE_ORIGIN}/test/fixtures/dispatch/original-member.html?${query}`;
    window.addEventListener('message', this.#onMessage);
    document.body.append(this.iframe);
  }

  of(kind: string): Record<string, unknown>[] {
    return this.reports.filter((report) => report.kind === kind).map((report) => report.data as Record<string, unknown>);
  }

  last(kind: string): Record<string, unknown> | undefined {
    return this.of(kind).at(-1);
  }

  async command(command: string, ...args: unknown[]): Promise<unknown> {
    await waitUntil(() => this.of('loaded').length > 0, `${this.tag} to load`, 15_000);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.tag}: no answer to ${command}`)), 15_000);
      this.#replies.set(id, (value) => {
        clearTimeout(timer);
        resolve(value);
      });
      this.iframe.contentWindow!.postMessage({ command, id, args }, TEMPLATE_ORIGIN);
    });
  }

  async dispose(): Promise<void> {
    await this.command('disconnect').catch(() => undefined);
    window.removeEventListener('message', this.#onMessage);
    this.iframe.remove();
  }
}

describe('a template of the original @withkoji/dispatch through platform-kit/compat/dispatch (issue 24)', () => {
  let server = '';
  const members: OriginalMember[] = [];
  before(async () => {
    server = await signalingUrl();
  });
  afterEach(async () => {
    await Promise.all(members.splice(0).map((member) => member.dispose()));
  });
  const member = (shard: string): OriginalMember => {
    const made = new OriginalMember(server, shard);
    members.push(made);
    return made;
  };

  it('counts who is online from { connectedClients }, hears CONNECTED and events, and keeps maxConnectionsPerShard', async () => {
    const shard = `original-room-${Date.now()}`;
    const [a, b] = [member(shard), member(shard)];
    await waitUntil(() => a.last('online')?.['count'] === 2 && b.last('online')?.['count'] === 2, 'both to count two online');
    // Both join at once: which is listed first is the order of their joins, which this test does not set.
    const online = a.last('online') as { count: number; names: string[]; getter: number };
    expect({ ...online, names: [...online.names].sort() }).to.deep.equal({ count: 2, names: [a.tag, b.tag].sort(), getter: 2 });
    const connected = a.last('connected') as { clientId: string; shardName: string; getters: unknown };
    expect(connected.shardName).to.equal(shard);
    expect(connected.getters).to.deep.equal({ clientId: connected.clientId, shardName: shard });

    await a.command('chat', { text: 'hi' });
    await waitUntil(() => b.of('chat').length === 1, 'B to hear the chat');
    expect(b.of('chat')[0]).to.deep.equal({ text: 'hi' });

    // The shard was opened with maxConnectionsPerShard 2: a third member of that name is refused.
    const c = member(shard);
    await waitUntil(() => c.of('loaded').length > 0, 'C to load', 15_000);
    expect(await c.command('connectAgain')).to.deep.equal({ code: 'SHARD_FULL' });
    expect(c.of('online').every((report) => report['count'] !== 3)).to.equal(true);

    // removeEventListener(name) stops this page's handlers of that name.
    await b.command('stopChat');
    await a.command('chat', { text: 'again' });
    await sleep(300);
    expect(b.of('chat')).to.have.length(1);

    // The page that left: the others count one fewer.
    await a.dispose();
    await waitUntil(() => b.last('online')?.['count'] === 1, 'B to count one online');
    for (const page of [b, c]) expect(await page.command('uncaught')).to.deep.equal([]);
  });
});
