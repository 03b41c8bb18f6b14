/**
 * Size of what a template pays for: `guest/index.ts` bundled by esbuild
 * (bundle, minify, ESM, browser, es2022) in memory, gzipped with zlib level 9.
 *
 * "Without dispatch": Platform.dispatch (peerjs, WebRTC) is budgeted apart.
 * guest/index.ts exports it as `Platform` (dispatch and identity) and
 * `createDispatch`, so the figure against the target comes from an entry that
 * re-exports every name of guest/index.ts except those matching
 * {@link DISPATCH_EXPORT}; tree shaking leaves dispatch (and Platform.identity
 * with it) out. The whole bundle is printed too; comlink alone for context.
 */
import { build, type Metafile } from 'esbuild';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { bytes, table, type BenchContext, type BenchOutcome } from './support/bench.js';

export const description = 'Size of the guest bundle (guest/index.ts, esbuild minified ESM, gzip -9), target ≤ 12 KiB gzipped without dispatch.';

/** Target for the guest without dispatch, gzipped. */
export const TARGET_GZIP_BYTES = 12 * 1024;
/** Exports of guest/index.ts that belong to Platform.dispatch (left out of the budgeted figure). */
const DISPATCH_EXPORT = /^Platform$|dispatch/i;

interface Sizes {
  readonly raw: number;
  readonly min: number;
  readonly gzip: number;
  readonly exports: readonly string[];
  readonly inputs: { readonly path: string; readonly bytes: number }[];
}

async function measure(rootDir: string, entry: { path: string } | { contents: string }): Promise<Sizes> {
  const common = {
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: rootDir,
    tsconfig: join(rootDir, 'tsconfig.json'),
  } as const;
  const entryOptions =
    'path' in entry ? { entryPoints: [entry.path] } : { stdin: { contents: entry.contents, resolveDir: rootDir, sourcefile: 'bench-entry.ts', loader: 'ts' as const } };
  const raw = await build({ ...common, ...entryOptions, minify: false });
  const min = await build({ ...common, ...entryOptions, minify: true });
  const rawText = raw.outputFiles[0]?.contents ?? new Uint8Array();
  const minText = min.outputFiles[0]?.contents ?? new Uint8Array();
  return {
    raw: rawText.byteLength,
    min: minText.byteLength,
    gzip: gzipSync(minText, { level: 9 }).byteLength,
    exports: outputOf(min.metafile).exports,
    inputs: Object.entries(outputOf(min.metafile).inputs)
      .map(([path, input]) => ({ path, bytes: input.bytesInOutput }))
      .sort((a, b) => b.bytes - a.bytes),
  };
}

function outputOf(metafile: Metafile): Metafile['outputs'][string] {
  const output = Object.values(metafile.outputs)[0];
  if (!output) throw new Error('esbuild produced no output');
  return output;
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const { rootDir } = context;
  const whole = await measure(rootDir, { path: join(rootDir, 'guest/index.ts') });
  const dispatchNames = whole.exports.filter((name) => DISPATCH_EXPORT.test(name));
  const withoutDispatch =
    dispatchNames.length === 0
      ? whole
      : await measure(rootDir, {
          contents: `export { ${whole.exports.filter((name) => !DISPATCH_EXPORT.test(name)).join(', ')} } from './guest/index.ts';`,
        });
  const require = createRequire(join(rootDir, 'package.json'));
  const comlinkVersion = (require('comlink/package.json') as { version: string }).version;
  const comlink = await measure(rootDir, { contents: "export * from 'comlink';" });
  // The shard state (issue 26) is its own entry: what a template that imports it pays on top of the guest.
  const withState = await measure(rootDir, { contents: "export * from './guest/index.ts'; export * from './guest/state/index.ts';" });
  const yjsVersion = (require('yjs/package.json') as { version: string }).version;
  const yjsInGuest = whole.inputs.filter((input) => /node_modules\/(yjs|lib0)\//.test(input.path)).map((input) => input.path);

  const row = (label: string, sizes: Sizes): string[] => [label, bytes(sizes.raw), bytes(sizes.min), bytes(sizes.gzip), (sizes.gzip / 1024).toFixed(2)];
  const rows = [row(dispatchNames.length === 0 ? 'guest/index.ts (no dispatch in it)' : `guest without ${dispatchNames.join(', ')}`, withoutDispatch)];
  if (dispatchNames.length > 0) rows.push(row(`guest/index.ts, whole (with ${dispatchNames.join(', ')})`, whole));
  rows.push(row(`guest/index.ts + guest/state (yjs ${yjsVersion})`, withState));
  rows.push(row(`comlink ${comlinkVersion} alone`, comlink));
  context.log(table(['bundle', 'raw bytes', 'minified bytes', 'gzip -9 bytes', 'gzip KiB'], rows));

  context.log(
    `\nThe state's cost: +${bytes(withState.gzip - whole.gzip)} B gzipped over the whole guest; yjs or lib0 in the plain guest: ${yjsInGuest.length === 0 ? 'none' : yjsInGuest.join(', ')}\n`,
  );
  context.log('\nLargest inputs of the minified guest bundle (bytes in output, before gzip):\n');
  context.log(
    table(
      ['input', 'bytes'],
      withoutDispatch.inputs.slice(0, 12).map((input) => [relative(rootDir, join(rootDir, input.path)).replace(/^node_modules\//, ''), bytes(input.bytes)]),
    ),
  );

  const pass = withoutDispatch.gzip <= TARGET_GZIP_BYTES;
  return {
    data: { withoutDispatch, whole, withState, comlink, dispatchExports: dispatchNames },
    targets: [
      {
        name: 'guest bundle without dispatch ≤ 12 KiB gzipped',
        pass,
        detail: `${bytes(withoutDispatch.gzip)} B ${pass ? '≤' : '>'} ${bytes(TARGET_GZIP_BYTES)} B`,
      },
      {
        name: 'a template that does not import platform-kit/guest/state pays nothing for it (no yjs, no lib0 in guest/index.ts)',
        pass: yjsInGuest.length === 0,
        detail: yjsInGuest.length === 0 ? 'none' : yjsInGuest.join(', '),
      },
    ],
  };
}
