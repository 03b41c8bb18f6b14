// Identity over real HTTP: tokens issued with the admin key, verified by a
// backend, expired, rotated; anonymous tokens only when configured.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Identity as BackendIdentity, requestUserToken } from '../../signaling/backend-identity.js';
import { TokenIssuer } from '../../signaling/services/identity.js';
import { ADMIN_KEY, codeOf, jwtPayload, post, projectHeaders, REMIX, sleep, startServices, TEMPLATE, type Harness } from './services-support.js';
import { backend, PROJECT, startServer } from './signaling-support.js';

async function rejection(promise: Promise<unknown>): Promise<{ code?: unknown; message?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: unknown; message?: unknown };
  }
  assert.fail('expected a rejection');
}

describe('identity tokens', () => {
  let services: Harness;
  before(async () => {
    services = await startServices();
  });
  after(() => services.stop());

  const tokensUrl = () => `${services.url}/services/identity/tokens`;
  const admin = (projectId: string) => ({ 'x-platform-project-id': projectId, authorization: `Bearer ${ADMIN_KEY}` });

  it('issues a 15-minute token for a user the host vouches for; the owner is admin', async () => {
    const owner = await post(tokensUrl(), admin(TEMPLATE.id), { userId: TEMPLATE.owner, attributes: { username: 'Alice', avatarUrl: 'https://a.example/a.png' } });
    assert.equal(owner.status, 200);
    assert.equal(owner.body['role'], 'admin');
    const claims = jwtPayload(String(owner.body['token']));
    assert.equal(claims['sub'], 'alice');
    assert.equal(claims['aud'], TEMPLATE.id);
    assert.equal(Number(claims['exp']) - Number(claims['iat']), 900);
    const viewer = await post(tokensUrl(), admin(TEMPLATE.id), { userId: 'carol' });
    assert.equal(viewer.body['role'], 'user');
  });

  it('refuses a missing or wrong admin key, and a project token in its place', async () => {
    for (const headers of [{ 'x-platform-project-id': TEMPLATE.id }, { ...admin(TEMPLATE.id), authorization: 'Bearer nope' }, projectHeaders(TEMPLATE)]) {
      const answer = await post(tokensUrl(), headers, { userId: 'mallory' });
      assert.equal(answer.status, 401);
      assert.equal(codeOf(answer.body), 'UNAUTHORIZED');
    }
  });

  it('requestUserToken gives what Platform.identity.getToken resolves', async () => {
    const result = await requestUserToken({ url: services.url, adminKey: ADMIN_KEY, projectId: TEMPLATE.id, userId: 'alice', attributes: { username: 'Alice' } });
    assert.equal(result.presumedRole, 'admin');
    assert.deepEqual(result.presumedAttributes, { username: 'Alice' });
    assert.equal(typeof result.userToken, 'string');
    assert.ok(result.expiresAt > Date.now() + 14 * 60_000);
  });

  it('a backend resolves a token to { id, role, attributes }', async () => {
    const { userToken } = await requestUserToken({ url: services.url, adminKey: ADMIN_KEY, projectId: TEMPLATE.id, userId: 'carol', attributes: { username: 'Carol' } });
    const identity = new BackendIdentity({ projectId: TEMPLATE.id, projectToken: TEMPLATE.token, url: services.url });
    assert.deepEqual(await identity.resolveUserFromToken(userToken), { id: 'carol', role: 'user', attributes: { username: 'Carol' } });
  });

  it('getToken gives the backend its own token, which resolves to its project as admin', async () => {
    const identity = new BackendIdentity({ res: { locals: { PLATFORM_PROJECT_ID: REMIX.id, PLATFORM_PROJECT_TOKEN: REMIX.token } }, url: services.url });
    const { token } = await identity.getToken();
    const user = await identity.resolveUserFromToken(token);
    assert.equal(user.id, `backend:${REMIX.id}`);
    assert.equal(user.role, 'admin');
  });

  it("rejects a tampered token, another project's token and garbage with INVALID_TOKEN", async () => {
    const { userToken } = await requestUserToken({ url: services.url, adminKey: ADMIN_KEY, projectId: TEMPLATE.id, userId: 'carol' });
    const [header, payload, signature] = userToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'alice', role: 'admin' })).toString('base64url')}.${signature}`;
    const template = new BackendIdentity({ projectId: TEMPLATE.id, projectToken: TEMPLATE.token, url: services.url });
    const remix = new BackendIdentity({ projectId: REMIX.id, projectToken: REMIX.token, url: services.url });
    assert.equal((await rejection(template.resolveUserFromToken(forged))).code, 'INVALID_TOKEN');
    assert.equal((await rejection(remix.resolveUserFromToken(userToken))).code, 'INVALID_TOKEN');
    assert.equal((await rejection(template.resolveUserFromToken('not.a.jwt'))).code, 'INVALID_TOKEN');
    const wrongCredentials = new BackendIdentity({ projectId: TEMPLATE.id, projectToken: 'wrong', url: services.url });
    assert.equal((await rejection(wrongCredentials.resolveUserFromToken(userToken))).code, 'UNAUTHORIZED');
  });

  it('rejects an expired token with TOKEN_EXPIRED', async () => {
    // Three seconds, not one: `exp` counts whole seconds from a truncated `iat`, so a one-second token
    // issued late in a second could expire before a busy machine's first resolve.
    const { userToken } = await requestUserToken({ url: services.url, adminKey: ADMIN_KEY, projectId: TEMPLATE.id, userId: 'carol', ttlSeconds: 3 });
    const identity = new BackendIdentity({ projectId: TEMPLATE.id, projectToken: TEMPLATE.token, url: services.url });
    assert.equal((await identity.resolveUserFromToken(userToken)).id, 'carol');
    // Past the token's own `exp` (read from it, not assumed), with a second to spare.
    const { exp } = JSON.parse(Buffer.from(userToken.split('.')[1]!, 'base64url').toString('utf8')) as { exp: number };
    await sleep(Math.max(0, exp * 1_000 - Date.now()) + 1_000);
    const error = await rejection(identity.resolveUserFromToken(userToken));
    assert.equal(error.code, 'TOKEN_EXPIRED');
    assert.match(String(error.message), /expired/);
  });

  it('issues no anonymous token unless configured', async () => {
    const answer = await post(`${services.url}/services/identity/anonymous`, { 'x-platform-project-id': TEMPLATE.id }, {});
    assert.equal(answer.status, 403);
    assert.equal(codeOf(answer.body), 'FORBIDDEN');
  });
});

describe('anonymous tokens when configured', () => {
  it('issues role unknown tokens that a backend resolves', async () => {
    const services = await startServices({ allowAnonymousTokens: true });
    try {
      const answer = await post(`${services.url}/services/identity/anonymous`, { 'x-platform-project-id': TEMPLATE.id }, {});
      assert.equal(answer.status, 200);
      assert.equal(answer.body['role'], 'unknown');
      const identity = new BackendIdentity({ projectId: TEMPLATE.id, projectToken: TEMPLATE.token, url: services.url });
      const user = await identity.resolveUserFromToken(String(answer.body['token']));
      assert.match(user.id, /^anonymous:/);
      assert.equal(user.role, 'unknown');
    } finally {
      await services.stop();
    }
  });
});

describe('TokenIssuer', () => {
  const key1 = { kid: 'k1', secret: 'first-secret-of-at-least-32-bytes-long' };
  const key2 = { kid: 'k2', secret: 'second-secret-of-at-least-32-bytes-long' };

  it('rotates: the new key signs, the old one verifies until its tokens have expired', async () => {
    let clock = Date.now();
    const issuer = new TokenIssuer({ keys: [key1], maxTokenTtlSeconds: 3_600, now: () => clock });
    const old = await issuer.issue('p', { id: 'u', role: 'user' });
    issuer.rotate(key2);
    const fresh = await issuer.issue('p', { id: 'u', role: 'user' });
    assert.equal((JSON.parse(Buffer.from(fresh.token.split('.')[0]!, 'base64url').toString()) as { kid?: unknown }).kid, 'k2');
    assert.equal((await issuer.verify('p', old.token)).id, 'u');
    // Past every token k1 could have signed: k1 is gone; k2 still verifies its own.
    clock += 3_601_000;
    const late = await issuer.issue('p', { id: 'v', role: 'user' });
    assert.equal((await issuer.verify('p', late.token)).id, 'v');
    await assert.rejects(issuer.verify('p', old.token), (error: { code?: unknown }) => error.code === 'INVALID_TOKEN');
  });

  it('refuses short keys and lifetimes over the maximum', async () => {
    assert.throws(
      () => new TokenIssuer({ keys: [{ kid: 'k', secret: 'short' }] }),
      (error: { code?: unknown }) => error.code === 'INVALID_CONFIG',
    );
    const issuer = new TokenIssuer({ keys: [key1] });
    await assert.rejects(issuer.issue('p', { id: 'u', role: 'user' }, 7_200), (error: { code?: unknown }) => error.code === 'INVALID_ARGUMENT');
  });

  it('issues tokens a signaling server configured with the same keys accepts; rotation is one option', async () => {
    const issuer = new TokenIssuer({ keys: [key1] });
    const { token } = await issuer.issue(PROJECT, { id: 'alice', role: 'admin', attributes: { username: 'Alice' } });
    // key2 signs, key1 still verifies: the rotation of a deploy, in one option.
    const server = await startServer({ identity: { keys: [key2, key1] } });
    const client = backend(server);
    try {
      await client.connect({ shardName: 'rotation', authorization: token });
      assert.equal(client.session.userId, 'alice');
      const fresh = await server.issueUserToken(PROJECT, 'bob');
      assert.equal((JSON.parse(Buffer.from(fresh.token.split('.')[0]!, 'base64url').toString()) as { kid?: unknown }).kid, 'k2');
      await client.identify(fresh.token);
      assert.equal(client.session.userId, 'bob');
    } finally {
      await client.disconnect();
      await server.close();
    }
  });
});

describe('backend client configuration', () => {
  it('needs project credentials; reads the environment only for undefined arguments', async () => {
    const { Keystore } = await import('../../signaling/keystore.js');
    const saved = { id: process.env['PLATFORM_PROJECT_ID'], token: process.env['PLATFORM_PROJECT_TOKEN'] };
    try {
      delete process.env['PLATFORM_PROJECT_ID'];
      delete process.env['PLATFORM_PROJECT_TOKEN'];
      assert.throws(() => new Keystore(undefined, undefined, { url: 'http://127.0.0.1:1' }), /projectId \(or PLATFORM_PROJECT_ID\) and projectToken/);
      assert.throws(() => new Keystore('p', '', { url: 'http://127.0.0.1:1' }), /projectToken/);
      process.env['PLATFORM_PROJECT_ID'] = 'from-env';
      process.env['PLATFORM_PROJECT_TOKEN'] = 'env-token';
      assert.equal(new Keystore(undefined, undefined, { url: 'http://127.0.0.1:1' }).projectId, 'from-env');
      assert.equal(new Keystore('given', 'token', { url: 'http://127.0.0.1:1' }).projectId, 'given');
      assert.throws(() => new Keystore('p', 't', { url: 'http://user:pass@127.0.0.1:1' }), /no credentials/);
    } finally {
      for (const [name, value] of [
        ['PLATFORM_PROJECT_ID', saved.id],
        ['PLATFORM_PROJECT_TOKEN', saved.token],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
