/**
 * The players-meet member as a template ships it: bench/pages/players-meet-member.ts bundled by
 * esbuild with code splitting (the session and the mesh in chunks of their own, loaded on use),
 * minified, written under bench/_built/ and served by the benchmark's dev server as plain files.
 * Unbundled, the dev server sends one response per module and the browser finds a dynamic
 * import's modules one level at a time, which no shipped template does.
 *
 * With a baseline (issue 27), the same page is built once more against the guest and protocol of
 * another commit (`git archive` into bench/_baseline/<commit>/, as editor-large does): the same
 * harness, page and bundler, with that commit's client in it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { splitBuildOptions } from './split-bundle.js';

/** The guest and protocol of `ref` ('1': the merge base with main) under bench/_baseline/<commit>/ (written from git once); its directory and commit. */
export function baselineTree(rootDir: string, ref: string): { readonly dir: string; readonly commit: string } {
  // '1': the merge base with main, the client this branch started from.
  const named = ref === '1' ? execFileSync('git', ['merge-base', 'HEAD', 'main'], { cwd: rootDir, encoding: 'utf8' }).trim() : ref;
  const commit = execFileSync('git', ['rev-parse', named], { cwd: rootDir, encoding: 'utf8' }).trim();
  const dir = join(rootDir, 'bench', '_baseline', commit);
  if (!existsSync(join(dir, 'guest', 'index.ts'))) {
    mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['archive', commit, 'guest', 'protocol'], { cwd: rootDir, maxBuffer: 64 * 1024 * 1024 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
  }
  return { dir, commit };
}

/** Resolves the page's own imports of guest/ and protocol/ in `baselineDir` instead of the working tree. */
function fromBaseline(rootDir: string, baselineDir: string): Plugin {
  return {
    name: 'players-meet-baseline',
    setup(builder) {
      builder.onResolve({ filter: /^\.\.?\// }, (args) => {
        // Only imports made by files of the working tree (the bench page); the baseline's own resolve in it.
        if (args.importer.startsWith(baselineDir)) return undefined;
        const target = relative(rootDir, resolve(args.resolveDir, args.path));
        if (!/^(guest|protocol)\//.test(target)) return undefined;
        return { path: join(baselineDir, target.replace(/\.js$/, '.ts')) };
      });
    },
  };
}

/** Builds the member page (against `baselineDir`'s client when given) under bench/_built/<name>/; returns its URL path. */
export async function buildBundledMember(rootDir: string, name = 'players-meet', baselineDir?: string): Promise<string> {
  const outdir = join(rootDir, 'bench', '_built', name);
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  await build({
    ...splitBuildOptions(rootDir),
    entryPoints: [join(rootDir, 'bench', 'pages', 'players-meet-member.ts')],
    outdir,
    plugins: baselineDir ? [fromBaseline(rootDir, baselineDir)] : [],
  });
  await writeFile(
    join(outdir, 'member.html'),
    `<!doctype html>\n<html>\n  <head><meta charset="utf-8" /><title>players meet bench: member (bundled, ${name})</title></head>\n  <body>\n    <script type="module" src="./players-meet-member.js"></script>\n  </body>\n</html>\n`,
  );
  return `/bench/_built/${name}/member.html`;
}
