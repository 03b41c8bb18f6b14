/**
 * Builds a template's customization from `.platform/customization/*.json`
 * and writes the generated module and its types.
 *
 * Every file holds scopes of values and, under `@@editor`, the VCC
 * definitions of those scopes:
 *
 * ```json
 * { "card": { "title": "Hello" },
 *   "@@editor": [{ "key": "card", "fields": [{ "key": "title", "type": "text" }] }] }
 * ```
 *
 * Files are checked one by one (JSON syntax, shapes, types, values against
 * their definitions), then merged; a scope lives in exactly one file. A file
 * with any problem is not dropped from the build: the builder keeps the last
 * good version of every file and builds with that, because a template author
 * saving a half-typed file must not see the running template lose its values.
 *
 * This file holds the build loop and the merge of files; checking one file is
 * check-customization-file.ts (its `@@editor` part check-definitions.ts), the
 * file system customization-files.ts, problems customization-problems.ts.
 */
import { join, relative, resolve, sep } from 'node:path';
import { customizationSizeProblem, type BuiltCustomization, type VccScopeDefinition } from '../protocol/customization.js';
import { isVccPath, type PlainData } from '../protocol/data.js';
import { PlatformError } from '../protocol/errors.js';
import { checkFile, type FileContribution } from './check-customization-file.js';
import { listCustomizationFiles, readCustomizationFile, toPosix, writeIfChanged } from './customization-files.js';
import { defaultEnvTypesPath, writeEnvTypes } from './env-types.js';
import { ProblemList, type CustomizationProblem } from './customization-problems.js';
import { renderCustomizationModule, renderCustomizationTypes } from './generate.js';

// The builder's parts, re-exported: this module stays the one the CLI, the plugin and the middleware import.
export { EDITOR_KEY } from './check-definitions.js';
export { fingerprintCustomizationFiles, fingerprintsDiffer } from './customization-files.js';
export { formatProblem, type CustomizationProblem } from './customization-problems.js';

/** Where a template keeps its customization files, relative to its root. */
export const CUSTOMIZATION_DIR = '.platform/customization';
/** Where the generated files go by default, relative to the template root. */
export const DEFAULT_OUT_DIR = '.platform/generated';
/** File name of the generated module. */
export const MODULE_FILE_NAME = 'customization.js';
/** File name of the generated type declarations. */
export const TYPES_FILE_NAME = 'customization.d.ts';
/** Environment variable that gives `metadata.projectId`. */
export const PROJECT_ID_ENV = 'PLATFORM_PROJECT_ID';
/** Prefix of the environment variables that fill `serviceMap` (`PLATFORM_SERVICE_URL_BACKEND` → `backend`). */
export const SERVICE_URL_ENV_PREFIX = 'PLATFORM_SERVICE_URL_';

/** Environment variables, as `process.env` holds them. */
export type Env = Readonly<Record<string, string | undefined>>;

/** Options of {@link createCustomizationBuilder}. */
export interface CustomizationBuilderOptions {
  /** The template root: the directory that holds `.platform/`. */
  readonly root: string;
  /** Where to write the generated files; relative paths are resolved against `root`. Default `.platform/generated`. */
  readonly outDir?: string;
  /** Environment the predefined values are read from. Default `process.env`. */
  readonly env?: Env;
  /**
   * Where to write `platform-env.d.ts`, which makes TypeScript find the
   * generated types (relative to `root`), or false for none. Default
   * `src/platform-env.d.ts` when the template has `src/`, else at the root.
   */
  readonly envTypes?: string | false;
}

/** What one {@link CustomizationBuilder.build} produced. */
export interface CustomizationBuildResult {
  /** The merged customization, built from the good files and the last good version of the others. */
  readonly customization: BuiltCustomization;
  /** Everything wrong in the files as they are now; empty when all are good. */
  readonly problems: readonly CustomizationProblem[];
  /**
   * What builds but is likely a mistake: a type name no control knows
   * (`colour`: the file is used, and its field gets a raw JSON box in the
   * editor), or a value that does not fit its type (code `INVALID_VALUE`:
   * kept as it is, as the original SDK kept it; an unsafe media URL is
   * replaced by `''`).
   */
  readonly warnings: readonly CustomizationProblem[];
  /** True when this build wrote a generated file (false when their content was already current). */
  readonly wrote: boolean;
  /** The text of the generated `customization.js`. */
  readonly moduleSource: string;
  /** The text of the generated `customization.d.ts`. */
  readonly typesSource: string;
  /** Absolute paths of the customization files that were read. */
  readonly sourceFiles: readonly string[];
  /**
   * A fingerprint (inode, size, modification time) of every file read, taken
   * before it was read. {@link fingerprintCustomizationFiles} gives the same
   * for the files as they are now: a difference means a write this build did
   * not see.
   */
  readonly fingerprints: ReadonlyMap<string, string>;
}

/** Builds a template's customization, remembering the last good version of every file between builds. */
export interface CustomizationBuilder {
  /** Absolute template root. */
  readonly root: string;
  /** Absolute path of `.platform/customization`. */
  readonly customizationDir: string;
  /** Absolute directory the generated files are written to. */
  readonly outDir: string;
  /** Absolute path of the generated module. */
  readonly modulePath: string;
  /** Absolute path of the generated type declarations. */
  readonly typesPath: string;
  /** Absolute path of `platform-env.d.ts`, or null when it is not written. */
  readonly envTypesPath: string | null;
  /**
   * Reads every customization file, builds, and writes the generated files
   * when their content changed. Builds never overlap: a call made while one
   * runs starts after it. Rejects only when the output cannot be written.
   */
  build(): Promise<CustomizationBuildResult>;
}

/** Creates a builder for the template at `options.root`. */
export function createCustomizationBuilder(options: CustomizationBuilderOptions): CustomizationBuilder {
  const root = resolve(options.root);
  const outDir = resolve(root, options.outDir ?? DEFAULT_OUT_DIR);
  if (outDir.split(sep).includes('node_modules')) {
    // Generated files belong to the template: a node_modules copy is shared, overwritten by installs and invisible to git.
    throw new PlatformError('INVALID_ARGUMENT', `the output directory must be inside the template, not in node_modules (got ${outDir})`);
  }
  const env = options.env ?? process.env;
  const customizationDir = join(root, CUSTOMIZATION_DIR);
  const modulePath = join(outDir, MODULE_FILE_NAME);
  const typesPath = join(outDir, TYPES_FILE_NAME);
  const envTypesPath = options.envTypes === false ? null : options.envTypes === undefined ? defaultEnvTypesPath(root) : resolve(root, options.envTypes);
  const lastGood = new Map<string, FileContribution>();
  let owners = new Map<string, string>();
  let queue: Promise<unknown> = Promise.resolve();

  async function buildOnce(): Promise<CustomizationBuildResult> {
    const problems = new ProblemList();
    const warnings = new ProblemList();
    const names = await listCustomizationFiles(customizationDir);
    const files = names.map((name) => ({ name, file: toPosix(relative(root, join(customizationDir, name))) }));
    const candidates = new Map<string, Candidate>();
    const fingerprints = new Map<string, string>();

    for (const { name, file } of files) {
      const text = await readCustomizationFile(join(customizationDir, name), file, problems, fingerprints);
      if (text === undefined) continue; // gone between readdir and read: treated as deleted
      const checked = text === null ? null : checkFile(text, file, problems, warnings);
      if (checked) {
        candidates.set(file, { contribution: checked, fresh: true });
      } else {
        const previous = lastGood.get(file);
        if (previous) candidates.set(file, { contribution: previous, fresh: false });
      }
    }
    for (const file of lastGood.keys()) if (!files.some((entry) => entry.file === file)) lastGood.delete(file);

    resolveDuplicateScopes(
      files.map((entry) => entry.file),
      candidates,
      owners,
      lastGood,
      problems,
    );

    const nextOwners = new Map<string, string>();
    const values: Record<string, Record<string, PlainData>> = {
      metadata: { projectId: env[PROJECT_ID_ENV] ?? '' },
      serviceMap: serviceMapFrom(env),
    };
    const editor: VccScopeDefinition[] = [];
    for (const { file } of files) {
      const candidate = candidates.get(file);
      if (!candidate) continue;
      if (candidate.fresh) lastGood.set(file, candidate.contribution);
      for (const scope of candidate.contribution.scopes.keys()) nextOwners.set(scope, file);
      for (const [scope, scopeValues] of candidate.contribution.values) values[scope] = structuredClone(scopeValues);
      editor.push(...candidate.contribution.editor);
    }
    owners = nextOwners;

    const customization: BuiltCustomization = { version: 1, values, editor };
    // Over the limits the host refuses the whole customization: said here, where the author is.
    const tooLarge = customizationSizeProblem(editor);
    if (tooLarge !== null)
      warnings.add({ file: toPosix(relative(root, customizationDir)), path: '/@@editor', reason: `all files together ${tooLarge}; the editor refuses it (VALUE_TOO_LARGE)` });
    const moduleSource = renderCustomizationModule(customization);
    const typesSource = renderCustomizationTypes(customization);
    const wroteModule = await writeIfChanged(modulePath, moduleSource);
    const wroteTypes = await writeIfChanged(typesPath, typesSource);
    if (envTypesPath) await writeEnvTypes(envTypesPath, typesPath);
    return {
      customization,
      problems: problems.list,
      warnings: warnings.list,
      wrote: wroteModule || wroteTypes,
      moduleSource,
      typesSource,
      sourceFiles: names.map((name) => join(customizationDir, name)),
      fingerprints,
    };
  }

  return {
    root,
    customizationDir,
    outDir,
    modulePath,
    typesPath,
    envTypesPath,
    build() {
      const run = queue.then(buildOnce);
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

interface Candidate {
  readonly contribution: FileContribution;
  /** True for the file as it is now; false for its last good version. */
  readonly fresh: boolean;
}

/**
 * Keeps every scope in one file. When two files declare a scope, the file
 * that held it in the previous build keeps it (so an edit elsewhere cannot
 * steal it), else the first file by name; the other falls back to its last
 * good version, or out of the build, until the conflict is fixed.
 */
function resolveDuplicateScopes(
  files: readonly string[],
  candidates: Map<string, Candidate>,
  previousOwners: ReadonlyMap<string, string>,
  lastGood: ReadonlyMap<string, FileContribution>,
  problems: ProblemList,
): void {
  // Each pass demotes at least one file (fresh → last good → out), so this ends.
  for (;;) {
    const claims = new Map<string, string[]>();
    for (const file of files) {
      const candidate = candidates.get(file);
      if (!candidate) continue;
      for (const scope of candidate.contribution.scopes.keys()) {
        const claimants = claims.get(scope) ?? [];
        claimants.push(file);
        claims.set(scope, claimants);
      }
    }
    let demoted = false;
    for (const [scope, claimants] of claims) {
      if (claimants.length < 2) continue;
      const previous = previousOwners.get(scope);
      const winner = previous !== undefined && claimants.includes(previous) ? previous : (claimants[0] as string);
      for (const loser of claimants) {
        const candidate = candidates.get(loser);
        if (loser === winner || !candidate) continue;
        problems.add({
          file: loser,
          path: candidate.contribution.scopes.get(scope) ?? '',
          reason: `scope "${scope}" is already declared in ${winner}; a scope's values and definitions live in one file`,
        });
        const fallback = lastGood.get(loser);
        if (candidate.fresh && fallback) candidates.set(loser, { contribution: fallback, fresh: false });
        else candidates.delete(loser);
        demoted = true;
      }
    }
    if (!demoted) return;
  }
}

function serviceMapFrom(env: Env): Record<string, PlainData> {
  const serviceMap: Record<string, PlainData> = {};
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (!name.startsWith(SERVICE_URL_ENV_PREFIX) || value === undefined) continue;
    const service = name.slice(SERVICE_URL_ENV_PREFIX.length).toLowerCase();
    if (isVccPath(['serviceMap', service])) serviceMap[service] = value;
  }
  return serviceMap;
}
