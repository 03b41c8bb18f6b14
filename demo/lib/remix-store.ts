/**
 * Published remixes of the demo, kept in one JSON file in the data folder.
 *
 * Every write is a whole new file written next to the old one, fsync'd and
 * renamed over it: a rename is atomic, so a crash leaves the old or the new
 * list, never half of one. Writes are serialized (one process owns the file).
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO_TEMPLATES, REMIX_ID_PATTERN, type PublishedRemix } from '../catalog.js';

const FILE_NAME = 'remixes.json';
/** Most remixes kept: the oldest go first. */
const MAX_REMIXES = 500;

/** The published remixes of the demo. */
export class RemixStore {
  /** Opens the store in `dataDir` (an absent file is an empty list). */
  static async open(dataDir: string): Promise<RemixStore> {
    const path = join(dataDir, FILE_NAME);
    let remixes: PublishedRemix[] = [];
    try {
      const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
      if (Array.isArray(parsed)) remixes = parsed.filter(isPublishedRemix);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    }
    return new RemixStore(path, remixes);
  }

  readonly #path: string;
  #remixes: PublishedRemix[];
  #writing: Promise<void> = Promise.resolve();

  private constructor(path: string, remixes: PublishedRemix[]) {
    this.#path = path;
    this.#remixes = remixes;
  }

  /** Newest first. */
  list(): readonly PublishedRemix[] {
    return [...this.#remixes].sort((a, b) => b.createdAt - a.createdAt);
  }

  get(id: string): PublishedRemix | undefined {
    return this.#remixes.find((remix) => remix.id === id);
  }

  /** Adds a remix; resolves once it is on disk. */
  async publish(input: Omit<PublishedRemix, 'id' | 'createdAt'>): Promise<PublishedRemix> {
    const remix: PublishedRemix = { ...input, id: randomBytes(9).toString('base64url'), createdAt: Date.now() };
    this.#remixes = [...this.#remixes, remix].slice(-MAX_REMIXES);
    await this.#write();
    return remix;
  }

  /** Waits for writes in flight. */
  async close(): Promise<void> {
    await this.#writing;
  }

  #write(): Promise<void> {
    const snapshot = JSON.stringify(this.#remixes, null, 1);
    const next = this.#writing.then(async () => {
      const temp = `${this.#path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      const file = await open(temp, 'w', 0o600);
      try {
        await file.writeFile(snapshot);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temp, this.#path);
    });
    // A failed write must not block the next ones; the caller of this one still sees it fail.
    this.#writing = next.catch(() => undefined);
    return next;
  }
}

function isPublishedRemix(value: unknown): value is PublishedRemix {
  if (typeof value !== 'object' || value === null) return false;
  const remix = value as Record<string, unknown>;
  return (
    typeof remix['id'] === 'string' &&
    REMIX_ID_PATTERN.test(remix['id']) &&
    typeof remix['template'] === 'string' &&
    DEMO_TEMPLATES.some((template) => template.id === remix['template']) &&
    typeof remix['title'] === 'string' &&
    typeof remix['values'] === 'object' &&
    remix['values'] !== null &&
    typeof remix['createdAt'] === 'number'
  );
}
