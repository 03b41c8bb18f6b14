/**
 * The `platform-vcc` command line, as a function of its arguments and its
 * I/O, so tests run it in process and `bin.ts` stays a thin shell.
 *
 * Exit codes: 0 success, 1 the customization files have problems
 * (`preinstall-ts`) or the output cannot be written, 2 a usage error.
 */
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createCustomizationBuilder, CUSTOMIZATION_DIR, DEFAULT_OUT_DIR, formatProblem, type CustomizationBuildResult, type Env } from './build-customization.js';
import { ENV_TYPES_FILE_NAME } from './env-types.js';
import { watchCustomization } from './watch.js';

/** Exit code of a usage error: an unknown command or option. */
export const USAGE_EXIT_CODE = 2;

/** Where the command line reads and writes. */
export interface CliIo {
  /** Writes one line of normal output. */
  readonly stdout: (line: string) => void;
  /** Writes one line of diagnostics (problems, errors). */
  readonly stderr: (line: string) => void;
  /** Environment for the predefined values. */
  readonly env: Env;
  /** Directory relative paths of `--root` and `--out` are resolved against. */
  readonly cwd: string;
}

/** The help text. */
export const USAGE = `Usage: platform-vcc <command> [--root <dir>] [--out <dir>]

Builds a template's customization from ${CUSTOMIZATION_DIR}/*.json into
customization.js (the values get() returns) and customization.d.ts (their types).

Commands:
  watch           build, then rebuild on every change of the customization files
  preinstall-ts   build once; exit 1 when a file has problems (use it as "prebuild")

Options:
  --root <dir>    the template root, which holds .platform/ (default: the current directory)
  --out <dir>     where to write the generated files (default: <root>/${DEFAULT_OUT_DIR})
  --env-types <file>
                  where to write ${ENV_TYPES_FILE_NAME}, which makes TypeScript find the types
                  (default: <root>/src/ when there is a src directory, else <root>/)
  --no-env-types  do not write it (your tsconfig includes ${DEFAULT_OUT_DIR} itself)
  -h, --help      show this help`;

/**
 * Runs `platform-vcc` with `args` (without the node and script paths) and
 * resolves with the exit code. `watch` runs until `stop` aborts.
 */
export async function runCli(args: readonly string[], io: CliIo, stop?: AbortSignal): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    io.stderr(`platform-vcc: ${error instanceof Error ? error.message : String(error)}`);
    io.stderr(USAGE);
    return USAGE_EXIT_CODE;
  }
  const { values, positionals } = parsed;
  const command = positionals[0];
  if (values.help === true || command === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  if (command === undefined || positionals.length > 1 || (command !== 'watch' && command !== 'preinstall-ts')) {
    io.stderr(command === undefined ? 'platform-vcc: missing command' : `platform-vcc: unknown command "${positionals.join(' ')}"`);
    io.stderr(USAGE);
    return USAGE_EXIT_CODE;
  }
  const root = resolve(io.cwd, values.root ?? '.');
  const envTypes = values['no-env-types'] === true ? false : values['env-types'] === undefined ? undefined : resolve(io.cwd, values['env-types']);
  const builderOptions: BuilderOptions = {
    root,
    env: io.env,
    ...(values.out === undefined ? {} : { outDir: resolve(io.cwd, values.out) }),
    ...(envTypes === undefined ? {} : { envTypes }),
  };
  try {
    return command === 'watch' ? await runWatch(builderOptions, io, stop) : await runPreinstall(builderOptions, io);
  } catch (error) {
    io.stderr(`platform-vcc: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      root: { type: 'string' },
      out: { type: 'string' },
      'env-types': { type: 'string' },
      'no-env-types': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

type BuilderOptions = { readonly root: string; readonly env: Env; readonly outDir?: string; readonly envTypes?: string | false };

async function runPreinstall(options: BuilderOptions, io: CliIo): Promise<number> {
  const builder = createCustomizationBuilder(options);
  const result = await builder.build();
  printProblems(result, io);
  if (result.problems.length > 0) {
    io.stderr(`platform-vcc: ${countProblems(result)} in ${CUSTOMIZATION_DIR}; fix them before compiling`);
    return 1;
  }
  io.stdout(`platform-vcc: built ${displayPath(options.root, builder.modulePath)} and ${displayPath(options.root, builder.typesPath)}`);
  if (builder.envTypesPath) io.stdout(`platform-vcc: TypeScript finds the types through ${displayPath(options.root, builder.envTypesPath)}`);
  return 0;
}

async function runWatch(options: BuilderOptions, io: CliIo, stop: AbortSignal | undefined): Promise<number> {
  if (stop?.aborted) return 0;
  let previousProblems = '';
  const watcher = watchCustomization({
    ...options,
    onBuild(result) {
      // Reprinted on every build that has problems: the author wants to see them again after each save.
      printProblems(result, io);
      const problems = result.problems.map(formatProblem).join('\n');
      if (problems === '' && previousProblems !== '') io.stdout('platform-vcc: every customization file is valid again');
      previousProblems = problems;
      if (result.wrote) io.stdout(`platform-vcc: updated ${displayPath(options.root, watcher.builder.outDir)}`);
    },
    onError(error) {
      io.stderr(`platform-vcc: ${error instanceof Error ? error.message : String(error)}`);
    },
  });
  try {
    await watcher.ready;
    io.stdout(`platform-vcc: watching ${displayPath(options.root, watcher.builder.customizationDir)} (Ctrl-C to stop)`);
  } catch {
    // The first build failed (already reported through onError); keep watching: a later save may fix it.
  }
  await new Promise<void>((resolveStop) => {
    if (!stop) return; // no way to stop: run until the process ends
    if (stop.aborted) resolveStop();
    else stop.addEventListener('abort', () => resolveStop(), { once: true });
  });
  await watcher.close();
  return 0;
}

function printProblems(result: CustomizationBuildResult, io: CliIo): void {
  for (const problem of result.problems) io.stderr(formatProblem(problem));
  // Warnings build (exit 0) but are likely mistakes, such as a misspelled type name.
  for (const warning of result.warnings) io.stderr(`warning: ${formatProblem(warning)}`);
}

function countProblems(result: CustomizationBuildResult): string {
  return result.problems.length === 1 ? '1 problem' : `${result.problems.length} problems`;
}

function displayPath(root: string, path: string): string {
  const shown = relative(root, path);
  return shown === '' ? '.' : shown.startsWith('..') ? path : shown;
}
