/** Readable generated names (shards) and random ids (clients, peers). */
import { randomBytes } from 'node:crypto';

const ADJECTIVES = [
  'amber',
  'brave',
  'calm',
  'clever',
  'cosy',
  'eager',
  'gentle',
  'golden',
  'happy',
  'jolly',
  'kind',
  'lively',
  'lucky',
  'merry',
  'misty',
  'noble',
  'proud',
  'quiet',
  'rapid',
  'shiny',
  'silver',
  'sunny',
  'swift',
  'witty',
];
const NOUNS = [
  'badger',
  'brook',
  'cedar',
  'comet',
  'falcon',
  'fern',
  'harbor',
  'heron',
  'island',
  'lantern',
  'maple',
  'meadow',
  'otter',
  'pebble',
  'pine',
  'river',
  'robin',
  'sparrow',
  'summit',
  'tiger',
  'valley',
  'willow',
  'wren',
  'zephyr',
];

/** A shard name like `brave-otter-4821` (24 × 24 × 9000 ≈ 5 million names; the store retries a collision). */
export function readableShardName(): string {
  const bytes = randomBytes(4);
  const adjective = ADJECTIVES[bytes[0]! % ADJECTIVES.length]!;
  const noun = NOUNS[bytes[1]! % NOUNS.length]!;
  const number = 1000 + (bytes.readUInt16BE(2) % 9000);
  return `${adjective}-${noun}-${number}`;
}

// Ids come from a pooled buffer: one randomBytes call per 512 ids keeps joins cheap.
let pool = Buffer.alloc(0);
let offset = 0;
/** 96 random bits as 16 base64url characters; valid as a peerjs id when `alnum` (hex, 24 characters). */
export function randomId(alnum = false): string {
  if (offset + 12 > pool.length) {
    pool = randomBytes(12 * 512);
    offset = 0;
  }
  const slice = pool.subarray(offset, offset + 12);
  offset += 12;
  return alnum ? slice.toString('hex') : slice.toString('base64url');
}
