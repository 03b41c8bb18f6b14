// VccMiddleware against hostile remix headers, in real Express 5 and Express 4 apps over
// real HTTP. The headers are signed with the key the middleware trusts (as a buggy or
// compromised signer would send them), so only the middleware's own checks stand between
// them and the process: a scope named `toString` used to throw in a promise nobody handled
// (the backend exited), one named `hasOwnProperty` wrote onto the built-in function, where
// every later request saw that remix's values.
import assert from 'node:assert/strict';
import { sign, type KeyObject } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import express4 from 'express4';
import { ed25519KeyPair, signRemixContext, VCC_HEADER, verifyRemixContext, type RemixContext } from '../../signaling/services/vcc-headers.js';
import { createVccMiddleware, type PlatformLocals } from '../../signaling/vcc-middleware.js';
import { tripwire } from './tripwire.js';

const TEMPLATE_ID = 'template';
const ENV = { PLATFORM_PROJECT_ID: TEMPLATE_ID, PLATFORM_PROJECT_TOKEN: 'template-token' } as const;
const keys = ed25519KeyPair(Buffer.alloc(32, 42));

/** A header exactly as the platform writes one, for any payload: signRemixContext refuses these values now. */
function signedHeader(vals: unknown, privateKey: KeyObject = keys.privateKey): string {
  const iat = Math.floor(Date.now() / 1000);
  const payload = { aud: TEMPLATE_ID, pid: 'hostile-remix', ptk: 'hostile-remix-token', vals, iat, exp: iat + 300 };
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `v1.${encoded}.${sign(null, Buffer.from(`v1.${encoded}`), privateKey).toString('base64url')}`;
}

const EXPRESS_MAJORS = [
  ['Express 5', express],
  ['Express 4', express4 as unknown as typeof express],
] as const;

for (const [expressName, createApp] of EXPRESS_MAJORS) {
  describe(`VccMiddleware with ${expressName} and hostile headers`, () => {
    let server: Server;
    let base = '';
    const logged: string[] = [];
    const wire = tripwire();

    before(async () => {
      const app = createApp();
      app.use(
        createVccMiddleware({
          customization: { version: 1, values: { card: { title: 'Hello' } }, editor: [] },
          env: ENV,
          publicKey: keys.publicKeyBase64Url,
          log: (line) => logged.push(line),
        }),
      );
      app.get('/values', (req, res) => {
        const locals = res.locals as unknown as PlatformLocals;
        const scope = String(req.query['scope'] ?? '');
        const key = String(req.query['key'] ?? '');
        // What a later request finds under a name: ordinary property access, as a template author writes it.
        const scoped = (locals.platform as Record<string, unknown>)[scope] as Record<string, unknown> | undefined;
        const found = scoped === undefined || scoped === null ? null : scoped[key];
        res.json({
          title: locals.platform['card']?.['title'],
          userTitle: (locals.platform as unknown as { card: { title: string } }).card.title,
          found: typeof found === 'function' ? 'a function' : (found ?? null),
          id: locals.PLATFORM_PROJECT_ID,
          remix: locals.PLATFORM_IS_REMIX,
        });
      });
      await new Promise<void>((resolve) => {
        server = app.listen(0, '127.0.0.1', () => resolve());
      });
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      wire.remove();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    type Answer = { title: string; userTitle: string; found: unknown; id: string; remix: boolean };
    async function get(query: string, headers: Record<string, string> = {}): Promise<Answer> {
      const response = await Promise.race([fetch(`${base}/values?${query}`, { headers }), wire.tripped]);
      assert.equal(response.status, 200);
      return (await response.json()) as Answer;
    }

    it('serves a header with scope toString as if it had none, logs it once, and the process survives', async () => {
      const before = logged.length;
      // `name` and `length` are read-only on a function: writing them threw inside the middleware's promise.
      const answer = await get('scope=toString&key=title', {
        [VCC_HEADER]: signedHeader({ toString: { title: 'remix-private', name: 'x', length: 1 }, card: { title: 'Remix' } }),
      });
      assert.deepEqual(answer, { title: 'Hello', userTitle: 'Hello', found: null, id: TEMPLATE_ID, remix: false });
      assert.equal(logged.length - before, 1);
      assert.match(logged.at(-1) ?? '', /ignored an x-platform-vcc header/);
      assert.deepEqual(wire.seen, []);
    });

    it('keeps a hostile hasOwnProperty scope from every later request, and the request itself sees no remix', async () => {
      const before = logged.length;
      const hostile = await get('scope=hasOwnProperty&key=secret', { [VCC_HEADER]: signedHeader({ hasOwnProperty: { secret: 'remix-private' }, card: { title: 'Remix' } }) });
      // A later ordinary request of another visitor: nothing of the hostile remix anywhere.
      const later = await get('scope=hasOwnProperty&key=secret');
      assert.deepEqual(later, { title: 'Hello', userTitle: 'Hello', found: null, id: TEMPLATE_ID, remix: false });
      assert.equal((Object.prototype.hasOwnProperty as unknown as Record<string, unknown>)['secret'], undefined);
      assert.equal(hostile.remix, false);
      assert.equal(hostile.title, 'Hello');
      assert.equal(hostile.found, null);
      assert.equal(logged.length - before, 1);
      assert.equal(logged.length - before, 1);
      assert.deepEqual(wire.seen, []);
    });

    it('ignores every other prototype-named scope or key, and values with forbidden keys or too deep', async () => {
      let deep: unknown = 'x';
      for (let i = 0; i < 80; i++) deep = [deep];
      const hostileValues: unknown[] = [
        { valueOf: { a: 1 } },
        { constructor: { a: 1 } },
        { isPrototypeOf: { a: 1 } },
        { __defineGetter__: { a: 1 } },
        JSON.parse('{"__proto__": {"polluted": "yes"}}'),
        { card: { toString: 'x' } },
        { card: { hasOwnProperty: 'x' } },
        JSON.parse('{"card": {"__proto__": "x"}}'),
        JSON.parse('{"card": {"title": {"__proto__": {"polluted": "yes"}}}}'),
        { card: { title: deep } },
      ];
      for (const vals of hostileValues) {
        const before = logged.length;
        const answer = await get('scope=card&key=title', { [VCC_HEADER]: signedHeader(vals) });
        assert.equal(answer.remix, false, JSON.stringify(vals).slice(0, 80));
        assert.equal(answer.title, 'Hello');
        assert.equal(logged.length - before, 1);
      }
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
      assert.deepEqual(wire.seen, []);
    });

    it('still serves a genuine remix, in null-prototype records read with ordinary property access', async () => {
      const answer = await get('scope=card&key=title', { [VCC_HEADER]: signedHeader({ card: { title: 'Remix' } }) });
      assert.deepEqual(answer, { title: 'Remix', userTitle: 'Remix', found: 'Remix', id: 'hostile-remix', remix: true });
    });
  });
}

describe('signed VCC headers refuse prototype names at both ends', () => {
  const context = (values: RemixContext['values']): RemixContext => ({ templateProjectId: TEMPLATE_ID, projectId: 'r', projectToken: 't', values });

  it('signRemixContext throws INVALID_PATH for scopes and keys named like Object.prototype properties', () => {
    for (const values of [
      { toString: { a: 1 } },
      { hasOwnProperty: {} },
      { card: { valueOf: 1 } },
      JSON.parse('{"__proto__": {}}'),
      { constructor: {} },
      { card: { prototype: 1 } },
    ]) {
      assert.throws(() => signRemixContext(context(values as RemixContext['values']), keys.privateKey), { code: 'INVALID_PATH' }, JSON.stringify(values));
    }
    assert.ok(signRemixContext(context({ card: { title: 'fine' } }), keys.privateKey).startsWith('v1.'));
  });

  it('verifyRemixContext returns null for them, and null-prototype records for a genuine header', () => {
    assert.equal(verifyRemixContext(signedHeader({ toString: { a: 1 } }), keys.publicKey, TEMPLATE_ID), null);
    assert.equal(verifyRemixContext(signedHeader({ card: { hasOwnProperty: 1 } }), keys.publicKey, TEMPLATE_ID), null);
    const genuine = verifyRemixContext(signedHeader({ card: { title: 'ok' } }), keys.publicKey, TEMPLATE_ID);
    assert.equal(Object.getPrototypeOf(genuine?.values), null);
    assert.equal(Object.getPrototypeOf(genuine?.values['card']), null);
    assert.equal(genuine?.values['card']?.['title'], 'ok');
  });
});
