// The demo under hostile remixes, through its public API on a real port: publishing values
// with scopes or keys named like Object.prototype properties (toString, __proto__,
// hasOwnProperty…) or nested too deep is refused with 400 and a code, a remix of that kind
// already on disk (kept from before the door refused it) is served as the template, and
// the process keeps serving ordinary remixes. Before: the publish API took `toString`, and
// the vault's backend then threw in a promise nobody handled, which ends the process.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startDemo, type DemoServer } from '../../demo/server.js';
import { tripwire } from './tripwire.js';

/** A remix stored before the publish API refused its names, as RemixStore writes remixes.json. */
const STORED_HOSTILE = {
  id: 'hostile-stored-1',
  template: 'vault',
  title: 'old hostile remix',
  values: { toString: { name: 'x', label: 'leak' }, vault: { label: 'Hostile' } },
  parent: null,
  createdAt: 1,
};

describe('demo: hostile remixes through the public API', () => {
  let demo: DemoServer;
  let dataDir = '';
  const wire = tripwire('the demo process');

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'platform-demo-hostile-'));
    await writeFile(join(dataDir, 'remixes.json'), JSON.stringify([STORED_HOSTILE]));
    demo = await startDemo({ port: 0, dataDir, logLevel: 'silent' });
  });
  after(async () => {
    wire.remove();
    await demo?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const base = (): string => `http://127.0.0.1:${demo.port}`;
  async function call(path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await Promise.race([fetch(`${base()}${path}`, init), wire.tripped]);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const publish = (text: string) => call('/demo-api/remixes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
  const codeOf = (body: Record<string, unknown>): unknown => (body['error'] as { code?: unknown } | undefined)?.code;

  it('refuses scopes and keys named like Object.prototype properties with 400 INVALID_PATH', async () => {
    const bodies = [
      '{"template":"vault","values":{"toString":{"label":"x","name":"x"}}}',
      '{"template":"vault","values":{"__proto__":{"label":"x"}}}',
      '{"template":"vault","values":{"hasOwnProperty":{"secret":"x"}}}',
      '{"template":"vault","values":{"valueOf":{"a":1}}}',
      '{"template":"vault","values":{"constructor":{"a":1}}}',
      '{"template":"vault","values":{"vault":{"toString":"x"}}}',
      '{"template":"vault","values":{"vault":{"__proto__":"x"}}}',
    ];
    for (const text of bodies) {
      const answer = await publish(text);
      assert.equal(answer.status, 400, `${text} → ${answer.status} ${JSON.stringify(answer.body)}`);
      assert.equal(codeOf(answer.body), 'INVALID_PATH', text);
    }
    const feed = await call('/demo-api/feed');
    assert.deepEqual(
      (feed.body['remixes'] as { id: string }[]).map((remix) => remix.id),
      [STORED_HOSTILE.id],
    );
    assert.deepEqual(wire.seen, []);
  });

  it('refuses JSON nested deeper than 64 levels (400 INVALID_MESSAGE) and values that are not plain data (400 INVALID_VALUE)', async () => {
    const deepBody = `{"template":"vault","values":{"vault":{"label":${'['.repeat(2_000)}1${']'.repeat(2_000)}}}}`;
    const deep = await publish(deepBody);
    assert.equal(deep.status, 400);
    assert.equal(codeOf(deep.body), 'INVALID_MESSAGE');
    // 40 levels: within the body's limit, over a value's (32).
    const deepValue = await publish(`{"template":"vault","values":{"vault":{"label":${'['.repeat(40)}1${']'.repeat(40)}}}}`);
    assert.equal(deepValue.status, 400);
    assert.equal(codeOf(deepValue.body), 'INVALID_VALUE');
    const protoInValue = await publish('{"template":"vault","values":{"vault":{"label":{"__proto__":{"x":1}}}}}');
    assert.equal(protoInValue.status, 400);
    assert.equal(codeOf(protoInValue.body), 'INVALID_VALUE');
  });

  it('serves a hostile remix already on disk as the template, and the process survives', async () => {
    const answer = await call(`/templates/vault/api/open?remix=${STORED_HOSTILE.id}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body['remix'], false);
    assert.equal(answer.body['label'], "Captain's treasure");
    assert.deepEqual(wire.seen, []);
  });

  it('still publishes and serves an ordinary remix afterwards', async () => {
    const published = await publish(JSON.stringify({ template: 'vault', title: 'Fine', values: { vault: { label: 'Fine remix' } } }));
    assert.equal(published.status, 201, JSON.stringify(published.body));
    const id = String(published.body['id']);
    const fetched = await call(`/demo-api/remixes/${id}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body['values'], { vault: { label: 'Fine remix' } });
    const opened = await call(`/templates/vault/api/open?remix=${id}`);
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.equal(opened.body['remix'], true);
    assert.equal(opened.body['label'], 'Fine remix');
    // And an ordinary request after all of it sees nothing of the hostile values.
    const plain = await call('/templates/vault/api/open');
    assert.equal(plain.body['label'], "Captain's treasure");
    assert.equal(plain.body['remix'], false);
    assert.deepEqual(wire.seen, []);
  });
});
