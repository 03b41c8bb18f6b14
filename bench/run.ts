/**
 * Runs the benchmarks: every `bench/<name>.bench.ts`, or those whose name
 * contains one of the filters given. Diagnostics (`onlyWhenNamed`) run only
 * when named exactly (`npm run bench -- link-breakdown`).
 *
 *   npm run bench                      # all
 *   npm run bench -- link              # link-roundtrip (link-breakdown only when named)
 *   npm run bench -- size --strict     # exit 1 when a target is missed
 *   npm run bench -- link --samples=10000 --warmup=2000 --rounds=100
 *   npm run bench -- link --no-isolate # without COOP/COEP (coarser timers)
 *   npm run bench -- link --json=/tmp/bench.json  # raw samples too
 *   npm run bench -- shard-state       # issue 26: shard-state (late join, history on the relay) and shard-state-yjs (against the Yjs server, memory, history against a log)
 *
 * Browser benchmarks share one dev server (TypeScript through esbuild, bare
 * imports through node resolution, rooted at the repository) and one headless
 * Chromium; both start only when a benchmark asks for them and are closed at
 * the end. The server answers on every interface, so `http://localhost:PORT`
 * and `http://127.0.0.1:PORT` are two origins (and two sites): a real
 * cross-origin iframe with one server.
 */
import { startDevServer } from '@web/dev-server';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { readdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_FLAGS, chromiumPath } from '../test/chromium.mjs';
import type { BenchContext, BenchModule, BenchOptions, BenchServer, TargetCheck } from './support/bench.js';

const benchDir = dirname(fileURLToPath(import.meta.url));
const rootDir = resolve(benchDir, '..');
const SUFFIX = '.bench.ts';

function parseOptions(argv: readonly string[]): BenchOptions {
  const filters: string[] = [];
  const numbers = { samples: 5_000, warmup: 1_000, rounds: 50 };
  let isolate = true;
  let strict = false;
  let json: string | null = null;
  for (const argument of argv) {
    const match = /^--(samples|warmup|rounds)=(\d+)$/.exec(argument);
    if (match?.[1] && match[2]) {
      numbers[match[1] as keyof typeof numbers] = Number(match[2]);
    } else if (argument === '--no-isolate') {
      isolate = false;
    } else if (argument === '--strict') {
      strict = true;
    } else if (argument.startsWith('--json=')) {
      json = resolve(argument.slice('--json='.length));
    } else if (argument.startsWith('-')) {
      throw new Error(`unknown option ${argument} (known: --samples=N --warmup=N --rounds=N --no-isolate --strict --json=FILE)`);
    } else {
      filters.push(argument);
    }
  }
  if (numbers.rounds < 1 || numbers.samples < numbers.rounds) throw new Error('need --rounds ≥ 1 and --samples ≥ --rounds');
  return { filters, ...numbers, isolate, strict, json };
}

/** A port free right now (the dev server binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolvePort(port) : reject(new Error('no free port'))));
    });
  });
}

type DevServer = Awaited<ReturnType<typeof startDevServer>>;

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const names = (await readdir(benchDir))
    .filter((file) => file.endsWith(SUFFIX))
    .map((file) => basename(file, SUFFIX))
    .sort();
  // Only modules whose name matches are imported: one that does not load (its code is mid-edit) fails alone.
  const candidates = names.filter((name) => options.filters.length === 0 || options.filters.some((filter) => name.includes(filter)));
  const modules = new Map<string, Partial<BenchModule> | Error>();
  for (const name of candidates) {
    try {
      modules.set(name, (await import(pathToFileURL(join(benchDir, name + SUFFIX)).href)) as Partial<BenchModule>);
    } catch (error) {
      modules.set(name, error instanceof Error ? error : new Error(String(error)));
    }
  }
  const selected = candidates.filter((name) => {
    const module = modules.get(name);
    return module instanceof Error || module?.onlyWhenNamed !== true || options.filters.includes(name);
  });
  if (selected.length === 0) {
    console.error(`no benchmark matches ${options.filters.join(', ')}; there are: ${names.join(', ')}`);
    return 1;
  }

  // Started on first use by the context below, closed at the end.
  const started: { devServer?: DevServer; serverInfo?: Promise<BenchServer>; browser?: Promise<Browser> } = {};

  const context: BenchContext = {
    rootDir,
    options,
    server() {
      started.serverInfo ??= (async () => {
        const port = await freePort();
        started.devServer = await startDevServer({
          readCliArgs: false,
          readFileConfig: false,
          autoExitProcess: false,
          logStartMessage: false,
          config: {
            rootDir,
            port,
            hostname: 'localhost',
            nodeResolve: true,
            injectWebSocket: false,
            plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: join(rootDir, 'tsconfig.json') })],
            middleware: options.isolate
              ? [
                  // Cross-origin isolation gives performance.now() 5 µs resolution instead of 100 µs:
                  // round trips of a tenth of a millisecond cannot be told apart otherwise.
                  // CORP cross-origin lets the 127.0.0.1 iframe load under the host page's COEP.
                  async (ctx, next) => {
                    await next();
                    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
                    ctx.set('Cross-Origin-Embedder-Policy', 'require-corp');
                    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
                  },
                ]
              : [],
          },
        });
        return { port, hostOrigin: `http://localhost:${port}`, templateOrigin: `http://127.0.0.1:${port}` };
      })();
      return started.serverInfo;
    },
    browser() {
      started.browser ??= chromium.launch({
        ...(chromiumPath === undefined ? {} : { executablePath: chromiumPath }),
        headless: true,
        // BENCH_CHROMIUM_FLAGS (space-separated) adds flags for an ablation, e.g. mDNS candidates off.
        args: [...CHROMIUM_FLAGS, ...(process.env['BENCH_CHROMIUM_FLAGS']?.split(' ').filter(Boolean) ?? [])],
      });
      return started.browser;
    },
    log(line = '') {
      console.log(line);
    },
  };

  const load = (): string =>
    loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
  console.log(
    `machine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, load average ${load()}`,
  );
  const summary: { bench: string; target: TargetCheck }[] = [];
  const data: Record<string, unknown> = {};
  let failed = false;
  try {
    for (const name of selected) {
      console.log(`\n## ${name}\n`);
      const module = modules.get(name) ?? {};
      try {
        if (module instanceof Error) throw new Error(`bench/${name}${SUFFIX} did not load: ${module.message}`);
        if (typeof module.run !== 'function') throw new Error(`bench/${name}${SUFFIX} exports no run(context)`);
        if (module.description) console.log(`${module.description}\n`);
        const outcome = await module.run(context);
        for (const target of outcome.targets) summary.push({ bench: name, target });
        if (outcome.data !== undefined) data[name] = outcome.data;
      } catch (error) {
        failed = true;
        console.error(`bench ${name} failed:`, error);
      }
    }
  } finally {
    if (started.browser) await (await started.browser).close();
    await started.devServer?.stop();
  }

  console.log(`\nload average at the end: ${load()} (other work on the machine skews the figures)`);
  if (options.json !== null) {
    await writeFile(options.json, JSON.stringify({ date: new Date().toISOString(), options, data }) + '\n');
    console.log(`\nraw data written to ${options.json}`);
  }
  if (summary.length > 0) {
    console.log('\n## targets\n');
    for (const { bench, target } of summary) console.log(`${target.pass ? 'PASS' : 'FAIL'}  ${bench}: ${target.name} (${target.detail})`);
  }
  const missed = summary.some(({ target }) => !target.pass);
  return failed || (options.strict && missed) ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
