/**
 * `platform-kit create <dir>`: writes a new template project (template-files.ts) into an empty
 * or new folder. It never overwrites: a folder with files in it is refused with `INVALID_ARGUMENT`.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PlatformError } from '../../protocol/errors.js';
import { templateFiles } from './template-files.js';

/** The vite major a new project asks for when the kit cannot see one installed. */
const FALLBACK_VITE_VERSION = '8.0.0';

/** Writes the project; returns the files written, relative to `dir`. */
export async function createProject(dir: string): Promise<{ readonly dir: string; readonly files: readonly string[] }> {
  const target = resolve(dir);
  if (existsSync(target) && (await readdir(target)).length > 0) {
    throw new PlatformError('INVALID_ARGUMENT', `${target} is not empty: create makes a new project in an empty or new folder`);
  }
  const name = basename(target).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+/, '') || 'my-template';
  const files = templateFiles(name, await kitVersion(), viteVersion());
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(target, path)), { recursive: true });
    await writeFile(join(target, path), content, { flag: 'wx' });
  }
  return { dir: target, files: Object.keys(files) };
}

async function kitVersion(): Promise<string> {
  // package.json is two folders up from dist/cli/create (or from cli/create in the sources, three).
  for (const up of ['../../../package.json', '../../package.json']) {
    const path = fileURLToPath(new URL(up, import.meta.url));
    if (!existsSync(path)) continue;
    const json = JSON.parse(await readFile(path, 'utf8')) as { name?: unknown; version?: unknown };
    if (json.name === 'platform-kit' && typeof json.version === 'string') return json.version;
  }
  return '0.1.0';
}

function viteVersion(): string {
  try {
    const json = createRequire(import.meta.url)('vite/package.json') as { version?: unknown };
    return typeof json.version === 'string' ? json.version : FALLBACK_VITE_VERSION;
  } catch {
    return FALLBACK_VITE_VERSION;
  }
}
