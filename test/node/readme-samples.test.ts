// The README's and the docs pages' TypeScript samples type-check as a newcomer copies them
// (issue 17; issue 25 moved most of them to docs/*.md): every ```ts block of README.md and of
// each docs/*.md that imports from platform-kit is compiled under `strict`, against the kit's
// source, with only the page's own things (its elements, its app functions) declared around it.
// A sample that drifts from the API, or an event the host's types leave as a plain Event, fails here.
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import ts from 'typescript';
import { documentationPages, README_HOST_STUBS } from '../readme-stubs.js';
import { REPO_ROOT } from './cli-support.js';

const DIR = join(REPO_ROOT, 'test-artifacts/readme-samples');

/** What the samples use but do not define: the reader's own page and app (the host side's in README_HOST_STUBS). */
const AMBIENT = `
declare const audio: HTMLAudioElement;
declare const slider: HTMLInputElement;
declare const remixButton: HTMLButtonElement;
declare const shareButton: HTMLButtonElement;
declare const points: { x: number; y: number }[];
declare const clientId: string;
declare function drawPlayers(clients: readonly { clientId: string; userInfo: Record<string, unknown> }[]): void;
declare function draw(payload: Record<string, unknown>): void;
`;

/** The augmentation the generated customization.d.ts makes for the README's `card.json` (title, color). */
const GENERATED_TYPES = `
declare module 'platform-kit/guest' {
  interface CustomizationTypes {
    values: { card: { title: string; color: string } };
  }
}
export {};
`;

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  types: ['node'],
  allowImportingTsExtensions: true,
  paths: {
    'platform-kit/guest': [join(REPO_ROOT, 'guest/index.ts')],
    'platform-kit/guest/state': [join(REPO_ROOT, 'guest/state/index.ts')],
    'platform-kit/host/core': [join(REPO_ROOT, 'host/core.ts')],
    'platform-kit/host': [join(REPO_ROOT, 'host/index.ts')],
    'platform-kit/signaling': [join(REPO_ROOT, 'signaling/index.ts')],
  },
};

/** A sample: its page, its line there, and its code. */
interface Sample {
  readonly page: string;
  readonly line: number;
  readonly code: string;
}

/** The ```ts blocks of every page that import from platform-kit, in order. */
async function samples(): Promise<Sample[]> {
  const found: Sample[] = [];
  for (const page of await documentationPages(REPO_ROOT)) {
    const text = await readFile(join(REPO_ROOT, page), 'utf8');
    for (const match of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
      const code = match[1] ?? '';
      if (!/from 'platform-kit\//.test(code)) continue;
      found.push({ page, line: text.slice(0, match.index).split('\n').length + 1, code });
    }
  }
  return found;
}

describe('the README and docs samples', () => {
  after(() => rm(DIR, { recursive: true, force: true }));

  it('type-check under strict against the kit, as a newcomer copies them', async () => {
    const blocks = await samples();
    assert.ok(blocks.length >= 6, `found ${blocks.length} samples`);
    // Each audience's page has its samples here: a page that lost them (or a glob that missed it) fails.
    for (const page of ['README.md', 'docs/templates.md', 'docs/hosts.md', 'docs/server.md']) {
      assert.ok(
        blocks.some((block) => block.page === page),
        `no ts sample of ${page} was found`,
      );
    }
    await mkdir(DIR, { recursive: true });
    await writeFile(join(DIR, 'ambient.d.ts'), `${AMBIENT}${README_HOST_STUBS}`);
    // What platform-vcc generates from the README's customization file: get() is typed by it.
    await writeFile(join(DIR, 'customization.d.ts'), GENERATED_TYPES);
    const files: string[] = [];
    for (const [index, { code }] of blocks.entries()) {
      const file = join(DIR, `sample-${index + 1}.ts`);
      // Each sample is its own module (several import the same names).
      await writeFile(file, `${code}\nexport {};\n`);
      files.push(file);
    }
    const program = ts.createProgram({ rootNames: [join(DIR, 'ambient.d.ts'), join(DIR, 'customization.d.ts'), ...files], options: COMPILER_OPTIONS });
    const problems: string[] = [];
    for (const [index, file] of files.entries()) {
      const source = program.getSourceFile(file);
      assert.ok(source, file);
      for (const diagnostic of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
        const line = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line + 1;
        const block = blocks[index]!;
        problems.push(
          `${block.page}:${block.line + line - 1} (sample ${index + 1}, ${block.code.split('\n')[0]}): ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
        );
      }
    }
    assert.deepEqual(problems, []);
  });
});
