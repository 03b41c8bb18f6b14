/**
 * A bundle as a template's bundler with code splitting makes it (esbuild
 * `splitting: true`, ESM, minified, browser, es2022, in memory), and which of
 * its chunks a page fetches when: the entry and the chunks it imports
 * statically ("first load"), then each dynamic import with its own static
 * chunks on top. Each chunk is gzipped (-9) on its own, as a server sends it.
 */
import { build } from 'esbuild';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

/** One output chunk. */
export interface Chunk {
  readonly path: string;
  readonly min: number;
  readonly gzip: number;
  /** Chunks it imports statically, and the ones it loads with import(). */
  readonly imports: readonly string[];
  readonly dynamicImports: readonly string[];
  /** Its largest inputs, bytes in output before gzip. */
  readonly inputs: readonly { readonly path: string; readonly bytes: number }[];
}

/** How a template's bundler with code splitting builds (esbuild): the options both benches' builds share. */
export function splitBuildOptions(rootDir: string) {
  return {
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    logLevel: 'silent',
    absWorkingDir: rootDir,
    tsconfig: join(rootDir, 'tsconfig.json'),
  } as const;
}

/** A split bundle: its chunks by path, and its entry chunk's path. */
export interface SplitBundle {
  readonly entry: string;
  readonly chunks: ReadonlyMap<string, Chunk>;
}

export async function buildSplit(rootDir: string, entryPath: string): Promise<SplitBundle> {
  const outdir = join(rootDir, 'bench-split-out');
  const result = await build({
    ...splitBuildOptions(rootDir),
    entryPoints: [entryPath],
    write: false,
    metafile: true,
    outdir,
  });
  const files = new Map(result.outputFiles.map((file) => [relative(rootDir, file.path), file.contents]));
  const chunks = new Map<string, Chunk>();
  let entry = '';
  for (const [path, output] of Object.entries(result.metafile.outputs)) {
    const contents = files.get(path);
    if (!contents) continue;
    if (output.entryPoint === relative(rootDir, entryPath)) entry = path;
    chunks.set(path, {
      path,
      min: contents.byteLength,
      gzip: gzipSync(contents, { level: 9 }).byteLength,
      imports: output.imports.filter((i) => i.kind === 'import-statement').map((i) => i.path),
      dynamicImports: output.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path),
      inputs: Object.entries(output.inputs)
        .map(([input, { bytesInOutput }]) => ({ path: input, bytes: bytesInOutput }))
        .filter((input) => input.bytes > 0)
        .sort((a, b) => b.bytes - a.bytes),
    });
  }
  if (!entry) throw new Error('esbuild produced no entry chunk');
  return { entry, chunks };
}

/** `from` and every chunk it imports statically, transitively, minus those in `loaded`. */
export function staticClosure(bundle: SplitBundle, from: string, loaded: ReadonlySet<string> = new Set()): Set<string> {
  const found = new Set<string>();
  const visit = (path: string): void => {
    if (found.has(path) || loaded.has(path)) return;
    found.add(path);
    for (const next of bundle.chunks.get(path)?.imports ?? []) visit(next);
  };
  visit(from);
  return found;
}

/** The first dynamic import, from any of `loaded`, of a chunk whose name starts with `name`. */
export function dynamicChunk(bundle: SplitBundle, loaded: ReadonlySet<string>, name: string): string | undefined {
  for (const path of loaded) {
    for (const target of bundle.chunks.get(path)?.dynamicImports ?? []) if (target.split('/').pop()!.startsWith(name)) return target;
  }
  return undefined;
}

/** Minified and gzipped bytes of these chunks, each gzipped on its own. */
export function sizeOf(bundle: SplitBundle, paths: Iterable<string>): { min: number; gzip: number; files: number } {
  let min = 0;
  let gzip = 0;
  let files = 0;
  for (const path of paths) {
    const chunk = bundle.chunks.get(path);
    if (!chunk) continue;
    min += chunk.min;
    gzip += chunk.gzip;
    files++;
  }
  return { min, gzip, files };
}
