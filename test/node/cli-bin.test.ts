import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, USAGE } from '../../cli/main.js';
import { VCC_TYPES } from '../../protocol/customization.js';
import { makeTemplate, REPO_ROOT, waitFor, type TempTemplate } from './cli-support.js';

const templates: TempTemplate[] = [];
const children = new Set<ChildProcess>();
after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(templates.map((template) => template.remove()));
});

async function template(fixture?: string): Promise<TempTemplate> {
  const made = await makeTemplate(fixture);
  templates.push(made);
  return made;
}

interface Run {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `platform-vcc` the way npm would, but from the TypeScript source. */
function startBin(args: readonly string[], env: NodeJS.ProcessEnv = {}): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/bin.ts', ...args], {
    cwd: REPO_ROOT,
    // Only what the command needs: the host's PLATFORM_* variables must not leak into the build.
    env: { PATH: process.env['PATH'], ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    exit: new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        children.delete(child);
        resolve({ code, signal });
      });
    }),
  };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (run.stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
  return run;
}

async function runBin(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startBin(args, env);
  const { code } = await run.exit;
  // 'exit' can come before the pipes are drained.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: run.stdout, stderr: run.stderr };
}

describe('platform-vcc (the bin)', () => {
  it('starts with a node shebang', async () => {
    const source = await readFile(join(REPO_ROOT, 'cli/bin.ts'), 'utf8');
    assert.ok(source.startsWith('#!/usr/bin/env node\n'));
  });

  it('preinstall-ts writes the module and the types and exits 0 for good files', async () => {
    const t = await template('basic');
    const { code, stdout, stderr } = await runBin(['preinstall-ts', '--root', t.root], { PLATFORM_PROJECT_ID: 'from-env' });
    assert.equal(code, 0, stderr);
    // The fixture's one custom type builds, with a warning that names it (a typo would look the same).
    assert.equal(
      stderr,
      `warning: .platform/customization/card.json:/@@editor/0/fields/9/type: unknown type "my-custom-type": the editor shows a raw JSON box for it; known types: ${VCC_TYPES.join(', ')}\n`,
    );
    // The list is the table's (protocol/vcc-kinds.ts), not a copy: a kind added there is listed.
    assert.ok(VCC_TYPES.includes('text') && VCC_TYPES.includes('secret<image>') && !VCC_TYPES.includes('unknown'));
    assert.match(stdout, /built \.platform\/generated\/customization\.js and \.platform\/generated\/customization\.d\.ts/);
    assert.match(await t.read('.platform/generated/customization.js'), /"projectId": "from-env"/);
    assert.match(await t.read('.platform/generated/customization.d.ts'), /declare module 'platform-kit\/guest'/);
  });

  it('preinstall-ts prints a warning for an unknown type name, naming file and field, and still exits 0', async () => {
    const t = await template('basic');
    await t.write('typo.json', { look: { tint: '#00ff00' }, '@@editor': [{ key: 'look', fields: [{ key: 'tint', type: 'colour' }] }] });
    const { code, stderr } = await runBin(['preinstall-ts', '--root', t.root]);
    assert.equal(code, 0, stderr);
    assert.match(stderr, /^warning: \.platform\/customization\/typo\.json:\/@@editor\/0\/fields\/0\/type: unknown type "colour" \(did you mean "color"\?\)/m);
  });

  it('preinstall-ts keeps a value that does not fit its type, with a warning naming file, path, value and type; exits 0 and writes every file (issue 24)', async () => {
    // Values of the shapes templates of the original SDK ship: a number in a text field, null in an
    // image field, numeric ids in a list's text fields, a keystore-style name in a secret<image>.
    const t = await template('original-values');
    const { code, stdout, stderr } = await runBin(['preinstall-ts', '--root', t.root]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /built \.platform\/generated\/customization\.js/);
    const warnings = stderr.trim().split('\n');
    const file = '.platform/customization/scene.json';
    assert.deepEqual(warnings, [
      `warning: ${file}:/scene/appearAfter: value 3 does not fit type text (must be a string for a text VCC); kept as it is (defined at /@@editor/0)`,
      `warning: ${file}:/scene/background: value null does not fit type image (must be an http(s) URL or a path for an image VCC); kept as it is (defined at /@@editor/0)`,
      `warning: ${file}:/scene/links/0/id: value 1 does not fit type text (must be a string for a text VCC); kept as it is (defined at /@@editor/0)`,
      `warning: ${file}:/scene/links/1/id: value 2 does not fit type text (must be a string for a text VCC); kept as it is (defined at /@@editor/0)`,
      `warning: ${file}:/scene/reveal: value "$revealImage" does not fit type secret<image> (must be a keystore key path (platform-keystore://…), never the secret itself); kept as it is (defined at /@@editor/0)`,
      `warning: ${file}:/scene/download: value "javascript:alert(document.domain)" does not fit type file (must be an http(s) URL or a path for a file VCC); replaced by "": a URL that is not http(s) or a path is never linked or loaded (defined at /@@editor/0)`,
    ]);
    const module = await t.read('.platform/generated/customization.js');
    const values = JSON.parse(/export const customization = ([\s\S]*?);\n\ndefineCustomization/.exec(module)?.[1] ?? 'null') as { values: Record<string, Record<string, unknown>> };
    assert.deepEqual(values.values['scene'], {
      appearAfter: 3,
      background: null,
      links: [
        { id: 1, label: 'Home' },
        { id: 2, label: 'Shop' },
      ],
      reveal: '$revealImage',
      download: '',
    });
    assert.deepEqual(values.values['other'], { title: 'Kept beside the file with odd values' });
  });

  it('preinstall-ts prints every problem as file:path: reason and exits 1', async () => {
    const t = await template('basic');
    await t.write('bad.json', { metadata: {}, '@@editor': [{ key: 'x', fields: [{ key: 'n', type: 'range', typeOptions: { min: 'zero' } }] }] });
    const { code, stderr } = await runBin(['preinstall-ts', '--root', t.root]);
    assert.equal(code, 1);
    const lines = stderr
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('warning: '));
    assert.deepEqual(lines.slice(0, 2), [
      '.platform/customization/bad.json:/metadata: "metadata" is a predefined scope filled in by the platform; a customization file cannot declare it',
      '.platform/customization/bad.json:/@@editor/0/fields/0/typeOptions/min: typeOptions.min must be a number',
    ]);
    assert.match(lines[2] ?? '', /2 problems/);
    // The good files are still built: a project that compiles anyway gets their types.
    assert.match(await t.read('.platform/generated/customization.d.ts'), /title: string;/);
  });

  it('preinstall-ts honours --out, relative to the working directory', async () => {
    const t = await template('basic');
    const out = join(t.root, 'types-out');
    const { code } = await runBin(['preinstall-ts', '--root', t.root, '--out', out]);
    assert.equal(code, 0);
    assert.ok((await stat(join(out, 'customization.d.ts'))).isFile());
  });

  it('exits 2 with the usage for an unknown command, a missing command or an unknown option', async () => {
    for (const args of [['deploy'], [], ['watch', '--verbose'], ['preinstall-ts', 'extra']]) {
      const { code, stdout, stderr } = await runBin(args);
      assert.equal(code, 2, `platform-vcc ${args.join(' ')}`);
      assert.equal(stdout, '');
      assert.match(stderr, /Usage: platform-vcc <command>/);
    }
  });

  it('--help prints the usage and exits 0', async () => {
    const { code, stdout } = await runBin(['--help']);
    assert.equal(code, 0);
    assert.equal(stdout.trim(), USAGE);
  });

  it('watch rebuilds on change, reports problems, keeps running, and exits 0 on SIGTERM', async () => {
    const t = await template('basic');
    const run = startBin(['watch', '--root', t.root]);
    await waitFor(() => (run.stdout.includes('platform-vcc: watching .platform/customization') ? true : undefined), 10_000, 'the watcher to start');
    assert.match(await t.read('.platform/generated/customization.js'), /Hello from the fixture/);

    await t.write('card.json', { card: { title: 'Changed while watching' } });
    await waitFor(async () => ((await t.read('.platform/generated/customization.js')).includes('Changed while watching') ? true : undefined), 2_000, 'the rebuild');

    await t.write('card.json', '{ "card": [');
    await waitFor(() => (run.stderr.includes('.platform/customization/card.json: invalid JSON at line 1') ? true : undefined), 2_000, 'the problem report');
    assert.equal(run.child.exitCode, null, 'a broken file must not stop the watcher');

    await t.write('card.json', { card: { title: 'Fixed' } });
    await waitFor(async () => ((await t.read('.platform/generated/customization.js')).includes('"Fixed"') ? true : undefined), 2_000, 'the rebuild after the fix');

    run.child.kill('SIGTERM');
    const guard = setTimeout(() => run.child.kill('SIGKILL'), 5_000); // a hang fails below instead of stalling the suite
    const { code, signal } = await run.exit;
    clearTimeout(guard);
    assert.equal(signal, null, 'it handles SIGTERM itself instead of dying of it');
    assert.equal(code, 0);
  });

  it('watch exits 0 on SIGINT (Ctrl-C)', async () => {
    const t = await template('basic');
    const run = startBin(['watch', '--root', t.root]);
    await waitFor(() => (run.stdout.includes('watching') ? true : undefined), 10_000, 'the watcher to start');
    run.child.kill('SIGINT');
    const { code } = await run.exit;
    assert.equal(code, 0);
  });
});

describe('runCli (in process)', () => {
  function io(): { out: string[]; err: string[]; io: Parameters<typeof runCli>[1] } {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { stdout: (line) => out.push(line), stderr: (line) => err.push(line), env: {}, cwd: REPO_ROOT } };
  }

  it('resolves --root against cwd', async () => {
    const t = await template('basic');
    const capture = io();
    const code = await runCli(['preinstall-ts', '--root', '.'], { ...capture.io, cwd: t.root });
    assert.equal(code, 0);
    assert.match(await t.read('.platform/generated/customization.js'), /Hello from the fixture/);
  });

  it('watch returns 0 once the stop signal aborts', async () => {
    const t = await template('basic');
    const capture = io();
    const stop = new AbortController();
    const done = runCli(['watch', '--root', t.root], capture.io, stop.signal);
    await waitFor(() => (capture.out.some((line) => line.includes('watching')) ? true : undefined), 5_000, 'the watcher');
    stop.abort();
    assert.equal(await done, 0);
  });

  it('exits 1 when the output directory is refused', async () => {
    const t = await template('basic');
    const capture = io();
    const code = await runCli(['preinstall-ts', '--root', t.root, '--out', join(t.root, 'node_modules/x')], capture.io);
    assert.equal(code, 1);
    assert.match(capture.err.join('\n'), /not in node_modules/);
  });
});
