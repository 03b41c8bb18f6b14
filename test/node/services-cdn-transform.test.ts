// The CDN's transform hook under a crowd: a signed URL is public, and every request with a query
// reads the whole file into memory for the hook. The bytes read for transforms in flight are
// bounded (CdnLimits.maxTransformBytesInFlight); past it a request is answered 503 UNAVAILABLE,
// not given another copy of the file. The services router on a real HTTP server on loopback.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Keystore } from '../../signaling/keystore.js';
import { startServices, TEMPLATE, type Harness } from './services-support.js';

const MB = 1024 * 1024;

describe('CDN transforms: the bytes in flight are bounded', () => {
  let services: Harness;
  let running = 0;
  let mostAtOnce = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  before(async () => {
    services = await startServices({
      limits: { maxUploadBytes: 2 * MB, maxTransformBytesInFlight: 2.5 * MB },
      // An image service that takes its time: every call holds its copy of the file meanwhile.
      transform: async ({ body, contentType }) => {
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        await gate;
        running--;
        return { body: body.subarray(0, 4), contentType };
      },
    });
  });
  after(() => {
    release();
    return services.stop();
  });

  it('of 6 requests at once for a 1 MB file, 2 are transformed and 4 answered 503 UNAVAILABLE; the next one after them is served', async () => {
    const keystore = new Keystore(TEMPLATE.id, TEMPLATE.token, { url: services.url });
    const file = await keystore.upload('big.txt', Buffer.alloc(MB, 'a'), 'text/plain');
    const signed = await keystore.generateSignedUrl(file.url);
    const answers = Array.from({ length: 6 }, (_, i) => fetch(`${signed}?w=${i}`).then(async (response) => ({ status: response.status, text: await response.text() })));
    const refused = await Promise.all(answers.map((answer) => Promise.race([answer, new Promise<null>((resolve) => setTimeout(() => resolve(null), 1_500))])));
    release();
    const all = await Promise.all(answers);
    assert.ok(mostAtOnce <= 2, `${mostAtOnce} transforms held the file at once`);
    assert.equal(refused.filter((answer) => answer?.status === 503).length, 4, JSON.stringify(refused));
    for (const answer of all.filter((item) => item.status === 503)) assert.match(answer.text, /"code":"UNAVAILABLE"/);
    assert.equal(all.filter((answer) => answer.status === 200).length, 2);
    const later = await fetch(`${signed}?w=later`);
    assert.equal(later.status, 200);
    assert.equal((await later.text()).length, 4);
  });
});
