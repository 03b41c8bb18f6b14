/** The server key: the 32 bytes every other key of the services (tokens, vault, signed URLs, VCC) is derived from. */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PlatformError } from '../../protocol/errors.js';

/**
 * The 32-byte server key every other key is derived from: `given` (bytes, or
 * base64/base64url), else `<dataDir>/server.key`, created there (mode 0600)
 * on first use. Creates `dataDir` (mode 0700) when missing.
 */
export async function openServerKey(dataDir: string, given: Uint8Array | string | undefined): Promise<Uint8Array> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (given !== undefined) {
    const key = typeof given === 'string' ? Buffer.from(given, given.includes('-') || given.includes('_') ? 'base64url' : 'base64') : given;
    if (key.length !== 32) throw new PlatformError('INVALID_CONFIG', 'secretKey must be 32 bytes');
    return key;
  }
  const path = join(dataDir, 'server.key');
  try {
    const file = await open(path, 'wx', 0o600);
    try {
      await file.writeFile(randomBytes(32));
      await file.sync();
    } finally {
      await file.close();
    }
  } catch (error) {
    // EEXIST: a key is already there (or another process made it first): use it.
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
  }
  const key = await readFile(path);
  if (key.length !== 32) throw new PlatformError('INVALID_CONFIG', `${path} is not a 32-byte key (a write was interrupted? delete it only if no secret was stored yet)`);
  return key;
}
