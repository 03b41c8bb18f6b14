// The keystore over real HTTP: secrets stored by the owner, resolved by the
// owning project only, encrypted at rest, surviving a restart.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { requestUserToken } from '../../signaling/backend-identity.js';
import { Keystore } from '../../signaling/keystore.js';
import { FileSecretStore } from '../../signaling/services/secret-store.js';
import { ADMIN_KEY, codeOf, codeOfRejection, post, projectHeaders, REMIX, startServices, TEMPLATE, type Harness } from './services-support.js';

const SECRET = 'sk_live_the-template-api-key-0123456789';

describe('keystore', () => {
  let services: Harness;
  let keyPath: string;
  before(async () => {
    services = await startServices();
  });
  after(() => services.stop());

  it("the owner's editor stores a secret and gets a key path back, never the value", async () => {
    const { userToken } = await requestUserToken({ url: services.url, adminKey: ADMIN_KEY, projectId: TEMPLATE.id, userId: TEMPLATE.owner });
    const answer = await post(
      `${services.url}/services/keystore/secrets`,
      { 'x-platform-project-id': TEMPLATE.id, 'x-platform-user-token': userToken },
      { name: 'apiKey', value: SECRET },
    );
    assert.equal(answer.status, 200);
    keyPath = String(answer.body['keyPath']);
    assert.equal(keyPath, `platform-keystore://${TEMPLATE.id}/apiKey`);
    assert.ok(!JSON.stringify(answer.body).includes(SECRET));
  });

  it("refuses another user's token and no credentials", async () => {
    const { userToken } = await requestUserToken({ url: services.url, adminKey: ADMIN_KEY, projectId: TEMPLATE.id, userId: 'mallory' });
    const notOwner = await post(`${services.url}/services/keystore/secrets`, { 'x-platform-project-id': TEMPLATE.id, 'x-platform-user-token': userToken }, { value: 'x' });
    assert.equal(notOwner.status, 403);
    assert.equal(codeOf(notOwner.body), 'FORBIDDEN');
    // The remix owner's token is for the remix project: it is no token at all for the template.
    const { userToken: bobToken } = await requestUserToken({ url: services.url, adminKey: ADMIN_KEY, projectId: REMIX.id, userId: REMIX.owner });
    const otherProject = await post(`${services.url}/services/keystore/secrets`, { 'x-platform-project-id': TEMPLATE.id, 'x-platform-user-token': bobToken }, { value: 'x' });
    assert.equal(codeOf(otherProject.body), 'INVALID_TOKEN');
    const none = await post(`${services.url}/services/keystore/secrets`, {}, { value: 'x' });
    assert.equal(none.status, 401);
  });

  it('resolveValue gives the value to the owning project', async () => {
    const keystore = new Keystore(TEMPLATE.id, TEMPLATE.token, { url: services.url });
    assert.equal(await keystore.resolveValue(keyPath), SECRET);
  });

  it("a remix's credentials get FORBIDDEN for the template's key path, NOT_FOUND for their own unknown one", async () => {
    const remix = new Keystore(REMIX.id, REMIX.token, { url: services.url });
    assert.equal(await codeOfRejection(remix.resolveValue(keyPath)), 'FORBIDDEN');
    assert.equal(await codeOfRejection(remix.resolveValue(`platform-keystore://${REMIX.id}/apiKey`)), 'NOT_FOUND');
    assert.equal(await codeOfRejection(remix.resolveValue('https://not-a-key-path')), 'INVALID_ARGUMENT');
    const forged = new Keystore(TEMPLATE.id, REMIX.token, { url: services.url });
    assert.equal(await codeOfRejection(forged.resolveValue(keyPath)), 'UNAUTHORIZED');
  });

  it('a backend stores and replaces its own secrets', async () => {
    const keystore = new Keystore(REMIX.id, REMIX.token, { url: services.url });
    const path = await keystore.storeSecret('first', 'token');
    await keystore.storeSecret('second', 'token');
    assert.equal(await keystore.resolveValue(path), 'second');
    const generated = await keystore.storeSecret('random name');
    assert.match(generated, /^platform-keystore:\/\/remix-1\/[A-Za-z0-9_-]{16}$/);
  });

  it('keeps secrets encrypted at rest, the server key private, and survives a restart', async () => {
    const file = await readFile(join(services.dataDir, 'secrets.json'), 'utf8');
    assert.ok(!file.includes(SECRET), 'the store file holds the plaintext');
    assert.ok(!file.includes('second'));
    assert.match(file, /"apiKey":"v1\./);
    assert.equal((await stat(join(services.dataDir, 'server.key'))).mode & 0o777, 0o600);
    assert.equal((await stat(join(services.dataDir, 'secrets.json'))).mode & 0o777, 0o600);
    await services.stop(true);
    services = await startServices({}, services.dataDir);
    const keystore = new Keystore(TEMPLATE.id, TEMPLATE.token, { url: services.url });
    assert.equal(await keystore.resolveValue(keyPath), SECRET);
  });

  it('a record moved to another project does not open (bound to its project and name)', async () => {
    const file = join(services.dataDir, 'secrets.json');
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { projects: Record<string, Record<string, string>> };
    const { SecretVault, FileSecretStore } = await import('../../signaling/services/secret-store.js');
    const { deriveKey } = await import('../../signaling/services/http.js');
    const key = deriveKey(await readFile(join(services.dataDir, 'server.key')), 'secret vault');
    const store = await FileSecretStore.open(join(services.dataDir, 'moved.json'));
    await store.put(REMIX.id, 'apiKey', parsed.projects[TEMPLATE.id]!['apiKey']!);
    const vault = new SecretVault(store, key);
    await assert.rejects(vault.get(REMIX.id, 'apiKey'), (error: { code?: unknown }) => error.code === 'INTERNAL');
    await store.close();
  });

  it('credentials in the query string are not credentials', async () => {
    const response = await fetch(`${services.url}/services/keystore/resolve?projectId=${TEMPLATE.id}&token=${TEMPLATE.token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keyPath }),
    });
    // Credentials are read from headers only: the same values in the query count for nothing.
    assert.equal(response.status, 401);
    const headersOnly = await post(`${services.url}/services/keystore/resolve`, projectHeaders(TEMPLATE), { keyPath });
    assert.equal(headersOnly.body['value'], SECRET);
  });
});

describe('FileSecretStore and names from outside', () => {
  it('keeps the records of a project named __proto__ (or any Object.prototype name) across a reopen', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'platform-secrets-'));
    try {
      const file = join(dir, 'secrets.json');
      const store = await FileSecretStore.open(file);
      // Each put resolves once durable: after a reopen every one of them must be there.
      for (const projectId of ['__proto__', 'constructor', 'toString']) await store.put(projectId, '__proto__', `sealed-${projectId}`);
      await store.close();
      const reopened = await FileSecretStore.open(file);
      for (const projectId of ['__proto__', 'constructor', 'toString']) assert.equal(await reopened.get(projectId, '__proto__'), `sealed-${projectId}`, projectId);
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
