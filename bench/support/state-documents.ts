/**
 * The documents the shard-state benchmark serves, built the same way for
 * every server it compares: each member writes its share of plain values into
 * the map `state` (what `ShardState.map()` reads), in one transaction, from a
 * seeded generator, so a run is repeatable and both servers hold byte-for-byte
 * the same kind of content.
 */
import * as Y from 'yjs';

/** The map every member writes into (the `map()` helper's default name). */
export const STATE_MAP = 'state';

/** A small deterministic generator (mulberry32): the same seed, the same document. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One value as a sketch board would keep it: a stroke's color, width and points (fractions of the board). */
function strokeValue(random: () => number): { c: string; w: number; p: number[] } {
  const points: number[] = [];
  for (let i = 0; i < 24; i++) points.push(Math.round(random() * 10_000) / 10_000);
  return {
    c: `#${Math.floor(random() * 0xffffff)
      .toString(16)
      .padStart(6, '0')}`,
    w: 1 + Math.floor(random() * 12),
    p: points,
  };
}

/**
 * Writes member `member`'s share of a state of about `totalBytes` (encoded
 * with `Y.encodeStateAsUpdate`) shared by `members` members: keys
 * `m<member>-<i>`. Returns the number of keys written.
 */
export function writeShare(doc: Y.Doc, member: number, members: number, totalBytes: number): number {
  const map = doc.getMap<unknown>(STATE_MAP);
  const random = seededRandom(1_000 + member);
  // A stroke value encodes to about 230 bytes in a Y.Map (its key and item header included).
  const count = Math.ceil(totalBytes / members / 230);
  doc.transact(() => {
    for (let i = 0; i < count; i++) map.set(`m${member}-${i}`, strokeValue(random));
  });
  return count;
}

/** The keys a whole document of `members` members holds (what a joiner waits for). */
export function expectedKeys(members: number, totalBytes: number): number {
  return members * Math.ceil(totalBytes / members / 230);
}

/** The encoded size of a document's whole state. */
export function stateBytes(doc: Y.Doc): number {
  return Y.encodeStateAsUpdate(doc).byteLength;
}

/** Resolves once `doc`'s map holds `keys` keys; rejects after `timeoutMs`. */
export function whenKeys(doc: Y.Doc, keys: number, timeoutMs: number): Promise<void> {
  const map = doc.getMap<unknown>(STATE_MAP);
  if (map.size >= keys) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      map.unobserve(check);
      reject(new Error(`the document holds ${map.size} of ${keys} keys after ${timeoutMs} ms`));
    }, timeoutMs);
    const check = (): void => {
      if (map.size < keys) return;
      clearTimeout(timer);
      map.unobserve(check);
      resolve();
    };
    map.observe(check);
  });
}
