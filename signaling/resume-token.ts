/**
 * Resume tokens: what lets a dropped client take its id and shard back.
 *
 * A resume token binds a client id to its project and shard with an HMAC
 * under a key of its own (derived from the server key, never the user token
 * keys, so no key is used for two things). It carries the boot id of the
 * server that issued it, so a server can tell a client whose grace period ran
 * out (same boot) from one whose server restarted (other boot, state lost: it
 * may take its old id back). The key outlives restarts as the server key does
 * (`<dataDir>/server.key`), so a restarted server still recognizes its clients.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/** Issues and checks resume tokens under one key. */
export class ResumeTokens {
  /** Imported once: an HMAC keyed with a KeyObject skips the key import that raw bytes cost on every join. */
  readonly #key: KeyObject;

  /** `key`: at least 32 bytes, used for nothing else. */
  constructor(key: Uint8Array) {
    this.#key = createSecretKey(key);
  }

  /** The token of `clientId` in `projectId`/`shardName`, issued by the server run `bootId`. */
  issue(bootId: string, projectId: string, shardName: string, clientId: string): string {
    return `${bootId}.${shardName}.${this.#mac(bootId, projectId, shardName, clientId)}`;
  }

  /** Checks a token; returns its boot id and shard, or null when forged or malformed. */
  check(token: string, projectId: string, clientId: string): { bootId: string; shardName: string } | null {
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const [bootId, shardName, mac] = parts as [string, string, string];
    const expected = Buffer.from(this.#mac(bootId, projectId, shardName, clientId));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? { bootId, shardName } : null;
  }

  #mac(bootId: string, projectId: string, shardName: string, clientId: string): string {
    return createHmac('sha256', this.#key).update(`${bootId}\n${projectId}\n${shardName}\n${clientId}`).digest('base64url');
  }
}
