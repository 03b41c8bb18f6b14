// What `npm pack` puts in the package (issue 17): every local file the README links to or shows
// (its screenshots, docs/ARCHITECTURE.md) is in it, so the README read on the registry or in
// node_modules has no broken image or link; and no test, fixture or demo file is.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from './cli-support.js';

const run = promisify(execFile);

async function packedFiles(): Promise<Set<string>> {
  // --ignore-scripts: the pack must not rebuild dist (the suite's own build did).
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
  const [pack] = JSON.parse(stdout) as { files: { path: string }[] }[];
  return new Set(pack!.files.map((file) => file.path));
}

/** The README's relative links and images: `[text](path)` and `![alt](path)`, without anchors. */
async function readmeLocalTargets(): Promise<string[]> {
  const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  const targets = new Set<string>();
  for (const match of readme.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const target = match[1]!.split('#')[0]!;
    if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    targets.add(target.replace(/^\.\//, ''));
  }
  return [...targets];
}

describe('the npm package', { timeout: 120_000 }, () => {
  it("holds every local file the README links to or shows, and no tests, fixtures or demo", async () => {
    const [files, targets] = await Promise.all([packedFiles(), readmeLocalTargets()]);
    assert.ok(targets.some((target) => target.endsWith('.png')), `the README shows screenshots: ${targets.join(', ')}`);
    const missing = targets.filter((target) => !files.has(target));
    assert.deepEqual(missing, [], `README links to files the package lacks: ${missing.join(', ')}`);
    const stray = [...files].filter((path) => /^(test|demo|bench|test-artifacts)\//.test(path));
    assert.deepEqual(stray, []);
    assert.ok(files.has('dist/guest/index.js') && files.has('package.json'));
  });
});
