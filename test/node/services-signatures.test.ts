// Signatures read from base64url text accept one spelling only: the canonical one we write.
// Node's base64url decoder (and jose's on Node 20) takes `=` padding and the `+/` alphabet,
// and ignores the unused low bits of the last character, so before this a genuine signed
// URL, VCC header or user token had several spellings that all verified. Each variant is
// refused exactly like a forged signature, over real HTTP where there is a route.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ResumeTokens } from '../../signaling/resume-token.js';
import { TokenIssuer } from '../../signaling/services/identity.js';
import { UrlSigner } from '../../signaling/services/signed-url.js';
import { ed25519KeyPair, signRemixContext, verifyRemixContext } from '../../signaling/services/vcc-headers.js';
import { Keystore } from '../../signaling/keystore.js';
import { ADMIN_KEY, codeOf, post, projectHeaders, startServices, TEMPLATE, type Harness } from './services-support.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Spellings of the base64url text `text` that Buffer.from(…, 'base64url') decodes to the
 * same bytes. `plusSlash` needs a `-` or `_` in the text (callers make sure there is one).
 */
function variants(text: string): { padding: string; plusSlash: string; trailingBits: string } {
  const bytes = Buffer.from(text, 'base64url');
  assert.equal(bytes.toString('base64url'), text, 'the genuine text is canonical');
  const padding = text + '='.repeat((4 - (text.length % 4)) % 4 || 1);
  assert.ok(/[-_]/.test(text), 'the text holds - or _');
  const plusSlash = text.replace(/-/g, '+').replace(/_/g, '/');
  // The last character carries unused low bits whenever the length is not a multiple of 4:
  // flipping the lowest one leaves the bytes as they are.
  assert.notEqual(text.length % 4, 0);
  const last = ALPHABET.indexOf(text.at(-1)!);
  const trailingBits = `${text.slice(0, -1)}${ALPHABET[last ^ 1]!}`;
  for (const variant of [padding, plusSlash, trailingBits]) {
    assert.notEqual(variant, text);
    assert.deepEqual(Buffer.from(variant, 'base64url'), bytes, `${variant} decodes to the same bytes`);
  }
  return { padding, plusSlash, trailingBits };
}

/** The first of `make(0)`, `make(1)`… whose signature (from `signatureOf`) holds `-` or `_`. Deterministic: keys and inputs are fixed. */
function withDashOrUnderscore<T>(make: (n: number) => T, signatureOf: (value: T) => string): T {
  for (let n = 0; n < 1_000; n++) {
    const value = make(n);
    if (/[-_]/.test(signatureOf(value))) return value;
  }
  assert.fail('no signature with - or _ in 1000 tries');
}

describe('canonical base64url signatures only', () => {
  let services: Harness;
  before(async () => {
    services = await startServices();
  });
  after(() => services.stop());

  it('UrlSigner: a padded, +/ or trailing-bit variant of a genuine MAC is invalid', () => {
    const signer = new UrlSigner(Buffer.alloc(32, 5));
    const expiresAt = Math.floor(Date.now() / 1000) + 600;
    const token = withDashOrUnderscore(
      (n) => signer.sign({ projectId: 'p', path: `f${n}.png`, expiresAt }),
      (t) => t.split('.')[1]!,
    );
    const [payload, mac] = token.split('.') as [string, string];
    assert.equal(signer.check(token).ok, true);
    const accepted = Object.entries(variants(mac))
      .filter(([, variant]) => signer.check(`${payload}.${variant}`).ok)
      .map(([name]) => name);
    assert.deepEqual(accepted, []);
    for (const variant of Object.values(variants(mac))) assert.deepEqual(signer.check(`${payload}.${variant}`), { ok: false, reason: 'invalid' });
  });

  it('signed CDN URLs over HTTP: every variant answers 403 FORBIDDEN, like a forged one', async () => {
    const keystore = new Keystore(TEMPLATE.id, TEMPLATE.token, { url: services.url });
    await keystore.upload('sig/a.png', Buffer.from('89504e470d0a1a0a', 'hex'), 'image/png');
    // Not a signature with `__`: its `+/` spelling puts `//` in the URL's path, which the door
    // refuses before any signature is read (400, an empty segment), as it would a forged one. The
    // expiry in the signed text made such a signature turn up at some times of day.
    const url = await withDashOrUnderscoreAsync(
      (n) => keystore.generateSignedUrl(`${services.url}/cdn/${TEMPLATE.id}/sig/a.png`, 60 + n),
      (signed) => signed.split('.').at(-1)!,
      (signature) => !signature.includes('__'),
    );
    assert.equal((await fetch(url)).status, 200);
    const forged = await fetch(`${url.slice(0, -2)}AA`);
    assert.equal(forged.status, 403);
    const forgedCode = codeOf((await forged.json()) as Record<string, unknown>);
    const dot = url.lastIndexOf('.');
    const answers: Record<string, string> = {};
    for (const [name, variant] of Object.entries(variants(url.slice(dot + 1)))) {
      const answer = await fetch(`${url.slice(0, dot + 1)}${variant}`);
      answers[name] = `${answer.status} ${String(codeOf((await answer.json().catch(() => ({}))) as Record<string, unknown>))}`;
    }
    const refused = `403 ${String(forgedCode)}`;
    assert.deepEqual(answers, { padding: refused, plusSlash: refused, trailingBits: refused });
  });

  it('VCC headers: a padded, +/ or trailing-bit variant of a genuine Ed25519 signature is refused', () => {
    const keys = ed25519KeyPair(Buffer.alloc(32, 9));
    const header = withDashOrUnderscore(
      (n) => signRemixContext({ templateProjectId: 't', projectId: `r${n}`, projectToken: 'k', values: { card: { title: 'x' } } }, keys.privateKey),
      (h) => h.split('.')[2]!,
    );
    const [version, payload, signature] = header.split('.') as [string, string, string];
    assert.notEqual(verifyRemixContext(header, keys.publicKey, 't'), null);
    const accepted = Object.entries(variants(signature))
      .filter(([, variant]) => verifyRemixContext(`${version}.${payload}.${variant}`, keys.publicKey, 't') !== null)
      .map(([name]) => name);
    assert.deepEqual(accepted, []);
  });

  it('user tokens: a padded, +/ or trailing-bit variant of a genuine JWT signature is INVALID_TOKEN, in the issuer and over HTTP', async () => {
    const issued = await withDashOrUnderscoreAsync(
      (n) => post(`${services.url}/services/identity/tokens`, { 'x-platform-project-id': TEMPLATE.id, authorization: `Bearer ${ADMIN_KEY}` }, { userId: `user-${n}` }),
      (answer) => String(answer.body['token']).split('.')[2]!,
    );
    const token = String(issued.body['token']);
    const verifyUrl = `${services.url}/services/identity/verify`;
    assert.equal((await post(verifyUrl, projectHeaders(TEMPLATE), { token })).status, 200);
    const forged = await post(verifyUrl, projectHeaders(TEMPLATE), { token: `${token.slice(0, -2)}AA` });
    assert.equal(forged.status, 401);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const answers: Record<string, string> = {};
    for (const [name, variant] of Object.entries(variants(signature))) {
      const answer = await post(verifyUrl, projectHeaders(TEMPLATE), { token: `${header}.${payload}.${variant}` });
      answers[name] = `${answer.status} ${String(codeOf(answer.body))}`;
    }
    const refused = `401 ${String(codeOf(forged.body))}`;
    assert.deepEqual(answers, { padding: refused, plusSlash: refused, trailingBits: refused });
    // The signaling server verifies identify() tokens with the same issuer.
    for (const variant of Object.values(variants(signature))) {
      await assert.rejects(services.server.router.tokens.verify(TEMPLATE.id, `${header}.${payload}.${variant}`), { code: 'INVALID_TOKEN' });
    }
  });

  it('TokenIssuer alone: the same, with its own key', async () => {
    const issuer = new TokenIssuer({ keys: [{ kid: 'k1', secret: 'x'.repeat(32) }] });
    const { token } = await withDashOrUnderscoreAsync(
      (n) => issuer.issue('p', { id: `u${n}`, role: 'user', attributes: {} }),
      (t) => t.token.split('.')[2]!,
    );
    await issuer.verify('p', token);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const accepted: string[] = [];
    for (const [name, variant] of Object.entries(variants(signature))) {
      const outcome = await issuer.verify('p', `${header}.${payload}.${variant}`).then(
        () => 'accepted',
        (error: unknown) => (error as { code?: unknown }).code,
      );
      if (outcome !== 'INVALID_TOKEN') accepted.push(`${name}: ${String(outcome)}`);
    }
    assert.deepEqual(accepted, []);
  });

  it('resume tokens compare the MAC as text, so no variant gets through (strict before this change too)', () => {
    const tokens = new ResumeTokens(Buffer.alloc(32, 3));
    const token = withDashOrUnderscore(
      (n) => tokens.issue('boot', 'p', 'shard', `c${n}`),
      (t) => t.split('.')[2]!,
    );
    const clientId = (() => {
      for (let n = 0; n < 1_000; n++) if (tokens.issue('boot', 'p', 'shard', `c${n}`) === token) return `c${n}`;
      return assert.fail('client not found');
    })();
    assert.deepEqual(tokens.check(token, 'p', clientId), { bootId: 'boot', shardName: 'shard' });
    const [boot, shard, mac] = token.split('.') as [string, string, string];
    for (const [name, variant] of Object.entries(variants(mac))) assert.equal(tokens.check(`${boot}.${shard}.${variant}`, 'p', clientId), null, name);
  });
});

async function withDashOrUnderscoreAsync<T>(make: (n: number) => Promise<T>, signatureOf: (value: T) => string, also: (signature: string) => boolean = () => true): Promise<T> {
  for (let n = 0; n < 200; n++) {
    const value = await make(n);
    const signature = signatureOf(value);
    if (/[-_]/.test(signature) && also(signature)) return value;
  }
  return assert.fail('no signature with - or _ in 200 tries');
}
