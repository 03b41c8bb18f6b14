/**
 * Helpers of the `cli-*` Node tests: throwaway templates in the OS temp
 * directory, so no test writes generated files into the repository.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Fixtures of the CLI tests. */
export const FIXTURES = join(REPO_ROOT, 'test/fixtures/cli');

/** A template directory that is deleted by {@link TempTemplate.remove}. */
export interface TempTemplate {
  readonly root: string;
  /** Writes `.platform/customization/<name>`: a string as is, anything else as JSON. */
  write(name: string, content: unknown): Promise<void>;
  /** Deletes `.platform/customization/<name>`. */
  delete(name: string): Promise<void>;
  /** Reads a file relative to the root. */
  read(path: string): Promise<string>;
  remove(): Promise<void>;
}

/** Creates an empty template, or a copy of `test/fixtures/cli/<fixture>`. */
export async function makeTemplate(fixture?: string): Promise<TempTemplate> {
  const root = await mkdtemp(join(tmpdir(), 'platform-vcc-'));
  if (fixture !== undefined) await cp(join(FIXTURES, fixture), root, { recursive: true });
  const configPath = (name: string): string => join(root, '.platform/customization', name);
  return {
    root,
    async write(name, content) {
      await mkdir(dirname(configPath(name)), { recursive: true });
      await writeFile(configPath(name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    },
    async delete(name) {
      await rm(configPath(name));
    },
    read(path) {
      return readFile(join(root, path), 'utf8');
    },
    async remove() {
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Resolves when `check` returns a value other than undefined, or rejects after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
