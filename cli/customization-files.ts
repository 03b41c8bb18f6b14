/**
 * The file system side of the builder: listing and reading
 * `.platform/customization/*.json`, their fingerprints (how a watcher knows
 * a build missed a write), and writing the generated files atomically.
 */
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { ProblemList } from './customization-problems.js';

/** The customization files in `dir` (`*.json`), sorted by name; none when it does not exist. */
export async function listCustomizationFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((entry) => entry.name.endsWith('.json') && (entry.isFile() || entry.isSymbolicLink()))
      .map((entry) => entry.name)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return [];
    throw error;
  }
}

/**
 * Fingerprints of the customization files in `dir` as they are now, by
 * absolute path. Compared with {@link CustomizationBuildResult.fingerprints}
 * by watchers, because a file event can be lost: chokidar drops events that

 * build's own read of a file (its access time) is such an event.
 */
export async function fingerprintCustomizationFiles(dir: string): Promise<Map<string, string>> {
  const fingerprints = new Map<string, string>();
  for (const name of await listCustomizationFiles(dir)) {
    const path = join(dir, name);
    try {
      fingerprints.set(path, fingerprintOf(await stat(path)));
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
  }
  return fingerprints;
}

/** True when two sets of fingerprints differ (a file added, deleted or written). */
export function fingerprintsDiffer(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return true;
  for (const [path, fingerprint] of a) if (b.get(path) !== fingerprint) return true;
  return false;
}

function fingerprintOf(stats: { ino: number; size: number; mtimeMs: number }): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/** The file's text; undefined when it vanished; null (after reporting) when it cannot be read. */
export async function readCustomizationFile(path: string, file: string, problems: ProblemList, fingerprints: Map<string, string>): Promise<string | null | undefined> {
  try {
    // Stamped before reading: a write during the read then shows up as a changed fingerprint.
    // Also stamped when the read fails, so that a watcher does not retry an unreadable file forever.
    fingerprints.set(path, fingerprintOf(await stat(path)));
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'EISDIR') return undefined;
    problems.add({ file, path: '', reason: `cannot read the file (${code ?? String(error)})` });
    return null;
  }
}

/** Writes `content` unless the file already holds exactly that; true when it wrote. */
export async function writeIfChanged(path: string, content: string): Promise<boolean> {
  try {
    if ((await readFile(path, 'utf8')) === content) return false;
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
  await mkdir(dirname(path), { recursive: true });
  // Write then rename, so a dev server that reads on the change event never sees half a file.
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content, 'utf8');
  await rename(temporary, path);
  return true;
}

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function toPosix(path: string): string {
  return path.split(sep).join('/');
}
