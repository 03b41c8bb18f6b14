// JSON bodies of the services routes are refused when they nest deeper than 64 levels,
// before anything parses, walks or re-serializes them: 400 INVALID_MESSAGE, and the route
// does nothing (no secret stored). Before: any depth that fit the 64 KB body limit was
// parsed and the route went on with it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_MAX_JSON_DEPTH } from '../../protocol/data.js';
import { ADMIN_KEY, codeOf, projectHeaders, raw, startServices, TEMPLATE, type Harness } from './services-support.js';

describe('services: JSON bodies nested too deep', () => {
  let services: Harness;
  before(async () => {
    services = await startServices();
  });
  after(() => services.stop());

  async function postText(path: string, headers: Record<string, string>, text: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const answer = await raw(services.url, {
      method: 'POST',
      path,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      body: Buffer.from(text),
    });
    return { status: answer.status, body: JSON.parse(answer.body.toString('utf8')) as Record<string, unknown> };
  }
  const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

  it('refuses 65 levels and 20,000 levels with 400 INVALID_MESSAGE, and stores nothing', async () => {
    for (const depth of [DEFAULT_MAX_JSON_DEPTH + 1, 20_000]) {
      // The outer object is one level: `pad` holds depth - 1 more.
      const text = `{"value":"secret","name":"deep-${depth}","pad":${nested(depth - 1)}}`;
      const answer = await postText('/services/keystore/secrets', projectHeaders(TEMPLATE), text);
      assert.equal(answer.status, 400, `${depth}: ${JSON.stringify(answer.body)}`);
      assert.equal(codeOf(answer.body), 'INVALID_MESSAGE');
      const resolved = await postText('/services/keystore/resolve', projectHeaders(TEMPLATE), JSON.stringify({ keyPath: `platform-keystore://${TEMPLATE.id}/deep-${depth}` }));
      assert.equal(resolved.status, 404, `${depth}: the secret was stored`);
    }
  });

  it('refuses a deep body on every JSON route, whatever else it carries', async () => {
    const deep = nested(200);
    const routes: [string, Record<string, string>, string][] = [
      ['/services/identity/tokens', { 'x-platform-project-id': TEMPLATE.id, authorization: `Bearer ${ADMIN_KEY}` }, `{"userId":"carol","attributes":{},"x":${deep}}`],
      ['/services/identity/verify', projectHeaders(TEMPLATE), `{"token":"t","x":${deep}}`],
      ['/services/keystore/resolve', projectHeaders(TEMPLATE), `{"keyPath":"platform-keystore://template/x","x":${deep}}`],
      ['/services/keystore/sign', projectHeaders(TEMPLATE), `{"resource":"${services.url}/cdn/template/a.png","x":${deep}}`],
    ];
    for (const [path, headers, text] of routes) {
      const answer = await postText(path, headers, text);
      assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
      assert.equal(codeOf(answer.body), 'INVALID_MESSAGE', path);
    }
  });

  it('takes exactly 64 levels, and brackets inside strings do not count', async () => {
    const atLimit = await postText('/services/keystore/secrets', projectHeaders(TEMPLATE), `{"value":"v","name":"at-limit","pad":${nested(DEFAULT_MAX_JSON_DEPTH - 1)}}`);
    assert.equal(atLimit.status, 200, JSON.stringify(atLimit.body));
    const inString = await postText('/services/keystore/secrets', projectHeaders(TEMPLATE), JSON.stringify({ value: '['.repeat(1_000), name: 'brackets' }));
    assert.equal(inString.status, 200, JSON.stringify(inString.body));
  });
});
