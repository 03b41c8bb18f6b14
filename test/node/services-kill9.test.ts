// The embedded secret store under kill -9: a child writes secrets in a loop
// and is SIGKILLed at random moments, several times on the same file. Every
// write it acknowledged must read back, and the file must always parse.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { FileSecretStore, parseStoreFile, SecretVault } from '../../signaling/services/secret-store.js';

const WRITER = fileURLToPath(new URL('../fixtures/services/secret-writer.ts', import.meta.url));

/** Runs the writer until `killAfterMs` after its first acknowledgement, SIGKILLs it, returns the acknowledged writes. */
async function runAndKill(file: string, key: Buffer, prefix: string, killAfterMs: number): Promise<Map<string, string>> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file, key.toString('hex'), prefix], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acked = new Map<string, string>();
  let buffered = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    let armed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      // Only complete lines count: a line cut by the kill was not fully acknowledged.
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const match = /^ack (\S+) (\S+)$/.exec(line);
        if (match) acked.set(match[1]!, match[2]!);
      }
      if (!armed && acked.size > 0) {
        armed = true;
        setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, killAfterMs);
      }
    });
    child.on('exit', () => (armed ? undefined : reject(new Error(`writer exited before writing: ${stderr}`))));
  });
  assert.equal(await exited, 'SIGKILL');
  return acked;
}

describe('FileSecretStore under kill -9', () => {
  it('loses no acknowledged secret and never leaves a broken file', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'platform-kill9-'));
    const file = join(dir, 'secrets.json');
    const key = randomBytes(32);
    const everAcked = new Map<string, string>();
    try {
      for (let round = 0; round < 6; round++) {
        const acked = await runAndKill(file, key, `r${round}`, 30 + Math.floor(Math.random() * 400));
        assert.ok(acked.size > 0, `round ${round} acknowledged nothing`);
        for (const [name, value] of acked) everAcked.set(name, value);

        // The file on disk parses as a whole, whatever moment the kill hit.
        const records = parseStoreFile(await readFile(file, 'utf8'), file);
        assert.ok((records.get('project')?.size ?? 0) >= everAcked.size);

        const store = await FileSecretStore.open(file);
        const vault = new SecretVault(store, key);
        for (const [name, value] of everAcked) assert.equal(await vault.get('project', name), value, `round ${round}: ${name} lost`);
        await store.close();
        // Opening cleaned up whatever temp file the kill left behind.
        assert.deepEqual(
          (await readdir(dir)).filter((name) => name.endsWith('.tmp')),
          [],
        );
      }
      assert.ok(everAcked.size >= 12, `only ${everAcked.size} writes were acknowledged in all rounds`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
