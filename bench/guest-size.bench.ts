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
 *
 * "First load with dispatch" (issue 27): the same guest/index.ts as a
 * template's bundler with code splitting makes it (support/split-bundle.ts):
 * the entry chunk and the chunks it imports statically, which a page fetches
 * before the template runs; then what `connect()` loads on top (the session,
 * relay only), what the mesh adds (peer-transport, then peerjs), and every
 * chunk. Each chunk is gzipped on its own, as it is served. Socket.IO's
 * client (bundled alone, not split) is measured in the same run for scale,
 * and the first load of the merge base with main by the same method
 * (GUEST_SIZE_BASELINE=ref for another commit, 0 for none; skipped where git
 * has no main).
 */
import { build, type Metafile } from 'esbuild';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { bytes, table, type BenchContext, type BenchOutcome } from './support/bench.js';
import { baselineTree } from './support/bundled-member.js';
import { buildSplit, dynamicChunk, sizeOf, staticClosure, type SplitBundle } from './support/split-bundle.js';

export const description = 'Size of the guest bundle (guest/index.ts, esbuild minified ESM, gzip -9), target ≤ 12 KiB gzipped without dispatch.';

/** Target for the guest without dispatch, gzipped. */
export const TARGET_GZIP_BYTES = 12 * 1024;
/** Target for the guest with dispatch as first loaded (entry and static chunks, split), gzipped: "16 KB" of issue 27. */
export const TARGET_FIRST_LOAD_GZIP_BYTES = 16_000;
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

  const split = await measureSplit(context);
  const pass = withoutDispatch.gzip <= TARGET_GZIP_BYTES;
  const firstPass = split.firstLoad.gzip <= TARGET_FIRST_LOAD_GZIP_BYTES;
  return {
    data: { withoutDispatch, whole, withState, comlink, dispatchExports: dispatchNames, split },
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
      {
        name: 'guest with dispatch as first loaded (split: entry and static chunks) ≤ 16 KB gzipped',
        pass: firstPass,
        detail: `${bytes(split.firstLoad.gzip)} B ${firstPass ? '≤' : '>'} ${bytes(TARGET_FIRST_LOAD_GZIP_BYTES)} B; Socket.IO's client ${bytes(split.socketIo.gzip)} B in the same run`,
      },
    ],
  };
}

/** The split bundle's loads, in the order a page makes them, and Socket.IO's client beside them. */
async function measureSplit(context: BenchContext): Promise<{ firstLoad: Loaded; relayOnly: Loaded; mesh: Loaded; whole: Loaded; socketIo: Sizes }> {
  const { rootDir } = context;
  const bundle = await buildSplit(rootDir, join(rootDir, 'guest/index.ts'));
  const first = staticClosure(bundle, bundle.entry);
  const relayOnly = withDynamic(bundle, first, 'browser-session');
  const mesh = withDynamic(bundle, relayOnly, 'peer-transport');
  const loads = {
    firstLoad: loaded(bundle, first),
    relayOnly: loaded(bundle, relayOnly),
    mesh: loaded(bundle, mesh),
    whole: loaded(bundle, bundle.chunks.keys()),
  };
  const require = createRequire(join(rootDir, 'package.json'));
  const socketIoVersion = (require('socket.io-client/package.json') as { version: string }).version;
  const socketIo = await measure(rootDir, { contents: "export { io } from 'socket.io-client';" });
  const baseline = await baselineFirstLoad(context);

  context.log('\nWith code splitting (esbuild splitting: true), what a page fetches, each chunk gzipped on its own:\n');
  const row = (label: string, load: Loaded): string[] => [label, String(load.files), bytes(load.min), bytes(load.gzip), (load.gzip / 1024).toFixed(2)];
  context.log(
    table(
      ['load', 'files', 'minified bytes', 'gzip -9 bytes', 'gzip KiB'],
      [
        row('first load: entry chunk and its static chunks', loads.firstLoad),
        row('+ connect(), relay only (browser-session chunk)', loads.relayOnly),
        row('+ the mesh (peer-transport chunk; peerjs comes after)', loads.mesh),
        row('whole: every chunk (peerjs included)', loads.whole),
        [`socket.io-client ${socketIoVersion} alone (one bundle)`, '1', bytes(socketIo.min), bytes(socketIo.gzip), (socketIo.gzip / 1024).toFixed(2)],
        ...(baseline ? [row(`baseline ${baseline.commit.slice(0, 7)}: first load by the same method`, baseline.firstLoad)] : []),
      ],
    ),
  );
  context.log('\nLargest inputs of the first load (bytes in output, before gzip):\n');
  const inputs = [...first].flatMap((path) => bundle.chunks.get(path)?.inputs ?? []).sort((a, b) => b.bytes - a.bytes);
  context.log(
    table(
      ['input', 'bytes'],
      inputs.slice(0, 12).map((input) => [input.path.replace(/^node_modules\//, ''), bytes(input.bytes)]),
    ),
  );
  return { ...loads, socketIo };
}

/** The first load of the baseline commit's guest (bench/_baseline/), or null when there is none to build. */
async function baselineFirstLoad(context: BenchContext): Promise<{ commit: string; firstLoad: Loaded } | null> {
  const ref = process.env['GUEST_SIZE_BASELINE'] ?? '1';
  if (ref === '0') return null;
  try {
    const tree = baselineTree(context.rootDir, ref);
    const bundle = await buildSplit(context.rootDir, join(tree.dir, 'guest/index.ts'));
    return { commit: tree.commit, firstLoad: loaded(bundle, staticClosure(bundle, bundle.entry)) };
  } catch (error) {
    context.log(`\n(no baseline: ${String(error).split('\n')[0]})`);
    return null;
  }
}

interface Loaded {
  readonly files: number;
  readonly min: number;
  readonly gzip: number;
}

function loaded(bundle: SplitBundle, paths: Iterable<string>): Loaded {
  return sizeOf(bundle, paths);
}

/** `before` and the chunk the dynamic import named `name` loads, with its static chunks. */
function withDynamic(bundle: SplitBundle, before: ReadonlySet<string>, name: string): Set<string> {
  const target = dynamicChunk(bundle, before, name);
  if (!target) throw new Error(`no dynamic import of ${name} from the chunks loaded so far`);
  return new Set([...before, ...staticClosure(bundle, target, before)]);
}
