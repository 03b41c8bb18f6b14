/**
 * The kit as a template author gets it, with no network: `npm pack`'s tarball of this
 * repository (dist/ built first, so never a stale one), `create` from the packed kit's own bin,
 * and an install that puts the tarball where npm would, with the kit's dependencies and vite
 * linked from this repository's node_modules. Used by test/e2e/kit-dev.test.ts and bench/dev-loop.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, readdir, rename, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** This repository. */
export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Builds dist/ and packs it into `work`; returns the tarball's path. */
export async function packKit(work: string): Promise<string> {
  await run('npm', ['run', 'build:lib'], { cwd: REPO });
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: REPO, maxBuffer: 16 * 1024 * 1024 });
  return join(work, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
}

/** `npx platform-kit create <name>` in `work`: the packed kit's own bin, run from where npx would unpack it. */
export async function createFromTarball(work: string, tarball: string, name: string): Promise<string> {
  const npx = join(work, 'npx');
  await mkdir(npx, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', npx]);
  await run(process.execPath, [join(npx, 'package/dist/cli/kit-bin.js'), 'create', name], { cwd: work });
  return join(work, name);
}

/** Unpacks the tarball where npm would and links the kit's dependencies, vite and typescript from this repository. */
export async function installPacked(app: string, tarball: string, scratch: string): Promise<void> {
  await run('tar', ['-xzf', tarball, '-C', scratch]);
  await mkdir(join(app, 'node_modules/.bin'), { recursive: true });
  await rename(join(scratch, 'package'), join(app, 'node_modules/platform-kit'));
  for (const name of await readdir(join(REPO, 'node_modules'))) {
    if (name === '.bin' || name.startsWith('.') || name === 'platform-kit') continue;
    await symlink(join(REPO, 'node_modules', name), join(app, 'node_modules', name), 'dir');
  }
  // npm makes each bin's target executable (bin-links): tsc writes them 644, and so the tarball holds them.
  for (const bin of ['dist/cli/kit-bin.js', 'dist/cli/bin.js']) await chmod(join(app, 'node_modules/platform-kit', bin), 0o755);
  await symlink('../platform-kit/dist/cli/kit-bin.js', join(app, 'node_modules/.bin/platform-kit'));
  await symlink('../platform-kit/dist/cli/bin.js', join(app, 'node_modules/.bin/platform-vcc'));
  // The project's devDependencies' bins, linked as npm links every dependency's.
  await symlink('../typescript/bin/tsc', join(app, 'node_modules/.bin/tsc'));
  await symlink('../vite/bin/vite.js', join(app, 'node_modules/.bin/vite'));
}
