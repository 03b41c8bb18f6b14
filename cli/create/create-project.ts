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
/** The TypeScript a new project asks for when the kit's package.json names none (it names its own: the kit's types are checked with it). */
const FALLBACK_TYPESCRIPT_RANGE = '~5.9.3';

/** Writes the project; returns the files written, relative to `dir`. */
export async function createProject(dir: string): Promise<{ readonly dir: string; readonly files: readonly string[] }> {
  const target = resolve(dir);
  if (existsSync(target) && (await readdir(target)).length > 0) {
    throw new PlatformError('INVALID_ARGUMENT', `${target} is not empty: create makes a new project in an empty or new folder`);
  }
  const name =
    basename(target)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[._-]+/, '') || 'my-template';
  const kit = await kitPackage();
  const files = templateFiles(name, { kit: kit.version, vite: viteVersion(), typescript: kit.typescript });
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(target, path)), { recursive: true });
    await writeFile(join(target, path), content, { flag: 'wx' });
  }
  return { dir: target, files: Object.keys(files) };
}

/** The kit's version and the TypeScript range it pins for itself (the `typecheck` script of a new project runs tsc). */
async function kitPackage(): Promise<{ version: string; typescript: string }> {
  // package.json is two folders up from dist/cli/create (or from cli/create in the sources, three).
  for (const up of ['../../../package.json', '../../package.json']) {
    const path = fileURLToPath(new URL(up, import.meta.url));
    if (!existsSync(path)) continue;
    const json = JSON.parse(await readFile(path, 'utf8')) as { name?: unknown; version?: unknown; devDependencies?: { typescript?: unknown } };
    if (json.name !== 'platform-kit' || typeof json.version !== 'string') continue;
    const typescript = json.devDependencies?.typescript;
    return { version: json.version, typescript: typeof typescript === 'string' ? typescript : FALLBACK_TYPESCRIPT_RANGE };
  }
  return { version: '0.1.0', typescript: FALLBACK_TYPESCRIPT_RANGE };
}

function viteVersion(): string {
  try {
    const json = createRequire(import.meta.url)('vite/package.json') as { version?: unknown };
    return typeof json.version === 'string' ? json.version : FALLBACK_VITE_VERSION;
  } catch {
    return FALLBACK_VITE_VERSION;
  }
}
