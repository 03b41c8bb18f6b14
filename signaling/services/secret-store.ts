/**
 * Where secret VCC values live, encrypted.
 *
 * Two layers:
 * - {@link SecretStore}: a key-value store of sealed records (opaque strings)
 *   by project and name. {@link FileSecretStore} is the embedded default; a
 *   Redis implementation follows the same contract (a hash per project,
 *   `HSET`/`HGET`/`HDEL`, whose writes are durable per Redis' own AOF policy)
 *   for servers that run on many nodes.
 * - {@link SecretVault}: seals values with AES-256-GCM under a key derived
 *   from the server key before they reach any store, binding each record to
 *   its project and name (additional data), so a record copied to another
 *   project or name fails to open. No store ever sees a plaintext secret.
 *
 * FileSecretStore durability: every committed write is a whole new file
 * written next to the old one, fsync'd, renamed over it, and the directory
 * fsync'd. A rename is atomic, so the file on disk is always either the old
 * or the new complete version: a kill -9 at any moment loses no write whose
 * promise resolved and never leaves a half file. Concurrent writes are
 * grouped into one file write (group commit). One process owns a file: for
 * many processes, use the Redis store.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PlatformError } from '../../protocol/errors.js';

/** A store of sealed secret records. Every method is async so remote stores (Redis) fit. */
export interface SecretStore {
  /** The sealed record, or undefined. */
  get(projectId: string, name: string): Promise<string | undefined>;
  /** Stores a sealed record; resolves only once it is durable. */
  put(projectId: string, name: string, sealed: string): Promise<void>;
  /** Deletes a record; resolves true when there was one, once the deletion is durable. */
  delete(projectId: string, name: string): Promise<boolean>;
  /** Releases the store; later calls reject. */
  close(): Promise<void>;
}

const FILE_VERSION = 1;

type Mutation = { readonly projectId: string; readonly name: string; readonly sealed: string | null; readonly done: (error?: unknown) => void };

/** The embedded {@link SecretStore}: one JSON file, replaced atomically on every commit. */
export class FileSecretStore implements SecretStore {
  /** Opens (or creates on first write) the store at `path`; removes temporary files a killed writer left. */
  static async open(path: string): Promise<FileSecretStore> {
    const directory = dirname(path);
    const prefix = `${basename(path)}.`;
    for (const entry of await readdir(directory).catch(() => [] as string[])) {
      // A temp file is never the committed state: the rename is the commit.
      if (entry.startsWith(prefix) && entry.endsWith('.tmp')) await unlink(join(directory, entry)).catch(() => undefined);
    }
    let records = new Map<string, Map<string, string>>();
    try {
      records = parseStoreFile(await readFile(path, 'utf8'), path);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    }
    return new FileSecretStore(path, records);
  }

  readonly #path: string;
  #records: Map<string, Map<string, string>>;
  #pending: Mutation[] = [];
  #flushing: Promise<void> | null = null;
  #closed = false;
  #tempCounter = 0;

  private constructor(path: string, records: Map<string, Map<string, string>>) {
    this.#path = path;
    this.#records = records;
  }

  async get(projectId: string, name: string): Promise<string | undefined> {
    this.#assertOpen();
    return this.#records.get(projectId)?.get(name);
  }

  put(projectId: string, name: string, sealed: string): Promise<void> {
    return this.#mutate(projectId, name, sealed).then(() => undefined);
  }

  async delete(projectId: string, name: string): Promise<boolean> {
    const existed = this.#records.get(projectId)?.has(name) ?? false;
    await this.#mutate(projectId, name, null);
    return existed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    while (this.#flushing) await this.#flushing;
  }

  #assertOpen(): void {
    if (this.#closed) throw new PlatformError('INTERNAL', 'the secret store is closed');
  }

  #mutate(projectId: string, name: string, sealed: string | null): Promise<void> {
    this.#assertOpen();
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({
        projectId,
        name,
        sealed,
        done: (error) => (error === undefined ? resolve() : reject(error instanceof Error ? error : new Error('platform-kit: the secret store write failed', { cause: error }))),
      });
      this.#flushing ??= this.#flushLoop();
    });
  }

  async #flushLoop(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0);
        // Build the next state on a copy: memory changes only after the file is committed.
        const next = new Map([...this.#records].map(([project, names]) => [project, new Map(names)]));
        for (const { projectId, name, sealed } of batch) {
          const names = next.get(projectId) ?? new Map<string, string>();
          if (sealed === null) names.delete(name);
          else names.set(name, sealed);
          if (names.size === 0) next.delete(projectId);
          else next.set(projectId, names);
        }
        try {
          await this.#commit(next);
          this.#records = next;
          for (const mutation of batch) mutation.done();
        } catch (error) {
          for (const mutation of batch) mutation.done(error ?? new Error('write failed'));
        }
      }
    } finally {
      this.#flushing = null;
    }
  }

  async #commit(records: Map<string, Map<string, string>>): Promise<void> {
    // fromEntries defines own properties: `projects['__proto__'] = …` on a plain object would set its
    // prototype instead, and that project's records would be left out of the file without a word.
    const projects = Object.fromEntries([...records].map(([projectId, names]) => [projectId, Object.fromEntries(names)]));
    const body = { version: FILE_VERSION, projects };
    const temporary = `${this.#path}.${process.pid}.${this.#tempCounter++}.tmp`;
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(JSON.stringify(body));
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, this.#path);
    // Without the directory fsync the rename itself may not survive a power loss.
    const directory = await open(dirname(this.#path), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  }
}

/** Parses a store file; throws INTERNAL naming the file when it is not one. */
export function parseStoreFile(text: string, path = 'secret store'): Map<string, Map<string, string>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PlatformError('INTERNAL', `${path} is not valid JSON`);
  }
  const projects = (value as { version?: unknown; projects?: unknown } | null)?.projects;
  if ((value as { version?: unknown } | null)?.version !== FILE_VERSION || typeof projects !== 'object' || projects === null) {
    throw new PlatformError('INTERNAL', `${path} is not a secret store file`);
  }
  const records = new Map<string, Map<string, string>>();
  for (const [projectId, names] of Object.entries(projects)) {
    if (typeof names !== 'object' || names === null) throw new PlatformError('INTERNAL', `${path}: project ${projectId} is malformed`);
    const map = new Map<string, string>();
    for (const [name, sealed] of Object.entries(names as Record<string, unknown>)) {
      if (typeof sealed !== 'string') throw new PlatformError('INTERNAL', `${path}: ${projectId}/${name} is malformed`);
      map.set(name, sealed);
    }
    records.set(projectId, map);
  }
  return records;
}

/** Seals and opens secrets with AES-256-GCM over a {@link SecretStore}. */
export class SecretVault {
  readonly #store: SecretStore;
  readonly #key: Buffer;

  /** `key`: 32 bytes, derived from the server key for this purpose only. */
  constructor(store: SecretStore, key: Uint8Array) {
    if (key.length !== 32) throw new PlatformError('INVALID_CONFIG', 'the secret vault key must be 32 bytes');
    this.#store = store;
    this.#key = Buffer.from(key);
  }

  /** Encrypts and stores `value`; resolves once durable. */
  async put(projectId: string, name: string, value: string): Promise<void> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(additionalData(projectId, name));
    const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    const sealed = ['v1', iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    await this.#store.put(projectId, name, sealed);
  }

  /** The plaintext, or undefined when there is no such secret. A record that fails to open is INTERNAL. */
  async get(projectId: string, name: string): Promise<string | undefined> {
    const sealed = await this.#store.get(projectId, name);
    if (sealed === undefined) return undefined;
    const [version, iv, ciphertext, tag] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || ciphertext === undefined || tag === undefined) {
      throw new PlatformError('INTERNAL', 'a stored secret is malformed');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(additionalData(projectId, name));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new PlatformError('INTERNAL', 'a stored secret failed to decrypt (wrong server key or tampered record)', { cause: error });
    }
  }

  /** Deletes a secret. */
  delete(projectId: string, name: string): Promise<boolean> {
    return this.#store.delete(projectId, name);
  }
}

function additionalData(projectId: string, name: string): Buffer {
  return Buffer.from(`platform-kit secret\n${projectId}\n${name}`, 'utf8');
}
