/**
 * The `.d.ts` that `platform-vcc preinstall-ts` writes, compiled for real:
 * with it, `get()` of the guest knows the template's paths and value types.
 *
 * `test/fixtures/cli-out/typed-get` checks the same through the published
 * package (`tsc -p` after `npm run build`); this test needs no build: it
 * maps `platform-kit/guest` to the guest's source.
 */
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import ts from 'typescript';
import { runCli } from '../../cli/main.js';
import { makeTemplate, REPO_ROOT, type TempTemplate } from './cli-support.js';

const templates: TempTemplate[] = [];
after(async () => {
  await Promise.all(templates.map((template) => template.remove()));
});

const USAGE_SOURCE = `
import { InstantRemixing } from 'platform-kit/guest';
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
declare function expectTrue<T extends true>(): void;
const remix = new InstantRemixing();
const title = remix.get(['card', 'title']);
expectTrue<Equal<typeof title, string>>();
expectTrue<Equal<ReturnType<typeof remix.get<['card', 'size']>>, number>>();
expectTrue<Equal<ReturnType<typeof remix.get<['card', 'layout']>>, 'wide' | 'narrow'>>();
expectTrue<Equal<ReturnType<typeof remix.get<['theme', 'labels']>>, { ok: string; cancel: string }>>();
const projectId: string = remix.get(['metadata', 'projectId']);
// @ts-expect-error: not a key of card
remix.get(['card', 'nope']);
// @ts-expect-error: not a scope
remix.get(['nope', 'title']);
export { projectId };
`;

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: true,
  noEmit: true,
  types: [],
  paths: { 'platform-kit/guest': [join(REPO_ROOT, 'guest/index.ts')] },
  allowImportingTsExtensions: true,
};

/** Compiles `rootNames` and returns the diagnostics of `checked` only (the guest's source has its own type check). */
function diagnosticsOf(rootNames: readonly string[], checked: string): string[] {
  const program = ts.createProgram({ rootNames, options: COMPILER_OPTIONS });
  const file = program.getSourceFile(checked);
  assert.ok(file, `${checked} is not in the program`);
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map(
    (diagnostic) => `${diagnostic.start ?? 0}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
  );
}

/** Type-checks `source` in a template whose generated files are in `.platform/generated`; returns its diagnostics. */
async function typeCheck(root: string, source: string, withGeneratedTypes: boolean): Promise<string[]> {
  await writeFile(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  const file = join(root, 'usage.ts');
  await writeFile(file, source);
  return diagnosticsOf(withGeneratedTypes ? [file, join(root, '.platform/generated/customization.d.ts')] : [file], file);
}

/**
 * Type-checks the template at `root` as `tsc -p` would, with a tsconfig as authors write it:
 * `include` as given, and only `paths` added so that platform-kit/guest is the kit's source here.
 */
async function typeCheckProject(root: string, include: readonly string[]): Promise<string[]> {
  await writeFile(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  const config = { compilerOptions: { ...TSCONFIG_OPTIONS, paths: { 'platform-kit/guest': [join(REPO_ROOT, 'guest/index.ts')] } }, include };
  await writeFile(join(root, 'tsconfig.json'), JSON.stringify(config));
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(String(d.messageText)) },
  );
  assert.ok(parsed);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const ours = program.getSourceFiles().filter((file) => file.fileName.startsWith(root));
  return ours
    .flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)])
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const TSCONFIG_OPTIONS = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  allowImportingTsExtensions: true,
  lib: ['ES2023', 'DOM'],
};

const TYPED_SOURCE = `import { InstantRemixing } from 'platform-kit/guest';
const title: string = new InstantRemixing().get(['card', 'title']);
export { title };
`;

describe('platform-env.d.ts: typed get() with an ordinary tsconfig', () => {
  const cli = (root: string, ...args: string[]) => runCli(['preinstall-ts', '--root', root, ...args], { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: root });

  it('include: ["src"]: written to src/, and get() is typed there', async () => {
    const template = await makeTemplate('basic');
    templates.push(template);
    await mkdir(join(template.root, 'src'));
    await writeFile(join(template.root, 'src/main.ts'), TYPED_SOURCE);
    assert.equal(await cli(template.root), 0);
    assert.match(await template.read('src/platform-env.d.ts'), /^\/\/ Generated by platform-vcc[\s\S]*<reference path="\.\.\/\.platform\/generated\/customization\.d\.ts" \/>/);
    assert.deepEqual(await typeCheckProject(template.root, ['src']), []);
  });

  it('include: ["**/*.ts"] without src/: written to the root, and get() is typed', async () => {
    const template = await makeTemplate('basic');
    templates.push(template);
    await writeFile(join(template.root, 'main.ts'), TYPED_SOURCE);
    assert.equal(await cli(template.root), 0);
    assert.deepEqual(await typeCheckProject(template.root, ['**/*.ts']), []);
  });

  it('without it the same project does not compile (TypeScript skips .platform/), and an author’s own file is kept', async () => {
    const template = await makeTemplate('basic');
    templates.push(template);
    await mkdir(join(template.root, 'src'));
    await writeFile(join(template.root, 'src/main.ts'), TYPED_SOURCE);
    assert.equal(await cli(template.root, '--no-env-types'), 0);
    const errors = await typeCheckProject(template.root, ['src']);
    assert.ok(
      errors.some((message) => message.includes("Type 'unknown' is not assignable to type 'string'")),
      errors.join('\n'),
    );
    await writeFile(join(template.root, 'src/platform-env.d.ts'), '/// <reference path="../.platform/generated/customization.d.ts" />\n// mine\n');
    assert.equal(await cli(template.root), 0);
    assert.match(await template.read('src/platform-env.d.ts'), /\/\/ mine/);
  });
});

describe('generated customization.d.ts', () => {
  it('makes get() typed: declared paths give their VCC types, other paths do not compile', async () => {
    const template = await makeTemplate('basic');
    templates.push(template);
    const code = await runCli(['preinstall-ts', '--root', template.root], { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: template.root });
    assert.equal(code, 0);
    assert.deepEqual(await typeCheck(template.root, USAGE_SOURCE, true), []);
  });

  it('passes the committed type test (test/fixtures/cli-out/typed-get) against the guest source', () => {
    const dir = join(REPO_ROOT, 'test/fixtures/cli-out/typed-get');
    const testFile = join(dir, 'typed-get.test-d.ts');
    assert.deepEqual(diagnosticsOf([testFile, join(dir, 'customization.d.ts')], testFile), []);
  });

  it('is what makes the difference (without it the same file has errors)', async () => {
    const template = await makeTemplate('basic');
    templates.push(template);
    const diagnostics = await typeCheck(template.root, USAGE_SOURCE, false);
    assert.ok(
      diagnostics.some((message) => message.includes("Unused '@ts-expect-error' directive")),
      diagnostics.join('\n'),
    );
    assert.ok(
      diagnostics.some((message) => message.includes("'false' does not satisfy the constraint 'true'")),
      diagnostics.join('\n'),
    );
  });
});
