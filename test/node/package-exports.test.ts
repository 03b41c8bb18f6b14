// Imports the package by its name, as a consumer does after `npm install`:
// the exports map must resolve to built files that load.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, { types: string; default: string } | string>;
  bin: Record<string, string>;
  sideEffects: boolean;
};

describe('the package as a consumer imports it', () => {
  it('lists types first in every export and every target exists after the build', () => {
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'string') continue;
      assert.deepEqual(Object.keys(target), ['types', 'default'], subpath);
      assert.ok(existsSync(fileURLToPath(new URL(`../../${target.types}`, import.meta.url))), `${subpath} types`);
      assert.ok(existsSync(fileURLToPath(new URL(`../../${target.default}`, import.meta.url))), `${subpath} code`);
    }
    assert.equal(manifest.sideEffects, false);
    assert.ok(existsSync(fileURLToPath(new URL(`../../${manifest.bin['platform-vcc']}`, import.meta.url))));
  });

  it('names its repository, and every image of the README is a file of it (npm resolves relative images against the repository)', () => {
    const full = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { repository?: { url?: string }; homepage?: string };
    assert.match(full.repository?.url ?? '', /^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
    assert.match(full.homepage ?? '', /^https:\/\//);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
    assert.ok(images.length > 0);
    for (const image of images) {
      if (/^https:\/\//.test(image)) continue;
      assert.ok(!image.startsWith('/') && !image.startsWith('..'), `${image}: relative to the repository root`);
      assert.ok(existsSync(fileURLToPath(new URL(`../../${image}`, import.meta.url))), `${image} exists`);
    }
  });

  it('ships the platform-kit-server bin, built, with its shebang', () => {
    const target = manifest.bin['platform-kit-server'];
    assert.equal(target, './dist/signaling/bin.js');
    const file = fileURLToPath(new URL(`../../${target}`, import.meta.url));
    assert.ok(existsSync(file), 'run npm run build first');
    assert.match(readFileSync(file, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  });

  it('loads the server and the backend clients from platform-kit/signaling by name', async () => {
    const signaling = await import('platform-kit/signaling');
    assert.equal(typeof signaling.createSignalingServer, 'function');
    assert.equal(typeof signaling.PlatformBackend.Dispatch, 'function');
    assert.equal(typeof signaling.PlatformBackend.Identity, 'function');
    assert.equal(typeof signaling.PlatformBackend.Identity.prototype.getToken, 'function');
    assert.equal(typeof signaling.PlatformBackend.Identity.prototype.resolveUserFromToken, 'function');
    assert.equal(typeof signaling.Keystore, 'function');
    assert.equal(typeof signaling.VccMiddleware.express, 'function');
    assert.equal(typeof signaling.requestUserToken, 'function');
    // One public Identity: the backend client, in the namespace; the server's issuer is not a second one.
    assert.equal('Identity' in signaling, false);
    assert.equal('BackendIdentity' in signaling, false);
  });

  it('loads platform-kit/guest, /host and /signaling by name without side effects', async () => {
    const guest = await import('platform-kit/guest');
    assert.equal(typeof guest.InstantRemixing, 'function');
    assert.equal(typeof guest.getViewingContext, 'function');
    assert.equal(guest.getViewingContext('https://t.example/?context=remix'), 'remix');
    assert.equal(guest.getViewingContext('https://t.example/?context=evil'), 'default');
    assert.equal(guest.getViewingContext('https://t.example/'), 'default');
    for (const context of ['about', 'admin', 'remix', 'sticker'] as const) {
      assert.equal(guest.getViewingContext(guest.withViewingContext('https://t.example/?a=1', context)), context);
    }
    assert.equal(guest.isFeedDebug('https://t.example/?feedDebug=true'), true);
    assert.equal(guest.isFeedDebug('https://t.example/?feedDebug=1'), false);
    const host = await import('platform-kit/host');
    assert.equal(typeof host.TemplateFrame, 'function');
    assert.equal(typeof host.RemixSession, 'function');
    const signaling = await import('platform-kit/signaling');
    assert.equal(new signaling.PlatformError('NOT_FOUND', 'x').code, 'NOT_FOUND');
  });

  it('platform-kit/host/core gives the plain host classes, and nothing it imports reaches Lit', async () => {
    const core = await import('platform-kit/host/core');
    assert.equal(typeof core.TemplateFrame, 'function');
    assert.equal(typeof core.RemixSession, 'function');
    assert.equal('PlatformEditor' in core, false);
    // The built module graph from dist/host/core.js, followed through relative imports.
    const seen = new Set<string>();
    const bare = new Set<string>();
    const visit = (url: URL): void => {
      if (seen.has(url.href)) return;
      seen.add(url.href);
      for (const [, specifier] of readFileSync(url, 'utf8').matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]/g)) {
        if (specifier?.startsWith('.')) visit(new URL(specifier, url));
        else if (specifier) bare.add(specifier);
      }
    };
    visit(new URL('../../dist/host/core.js', import.meta.url));
    assert.ok(seen.size > 3, 'the graph was followed');
    assert.deepEqual(
      [...bare].filter((specifier) => /^(lit|@lit)/.test(specifier)),
      [],
    );
    assert.ok([...bare].includes('comlink'), 'a bare import is seen when there is one');
  });

  it('types resolve under the old moduleResolution "node" (node10) too, which ignores "exports" (typesVersions)', async () => {
    // A consumer project with platform-kit installed (a link to this package) and a plain old tsconfig.
    const consumer = fileURLToPath(new URL('../../test-artifacts/node10-consumer/', import.meta.url));
    await rm(consumer, { recursive: true, force: true });
    await mkdir(join(consumer, 'node_modules'), { recursive: true });
    await symlink(fileURLToPath(new URL('../../', import.meta.url)), join(consumer, 'node_modules/platform-kit'), 'dir');
    const file = join(consumer, 'index.ts');
    await writeFile(
      file,
      [
        "import { InstantRemixing, FeedSdk } from 'platform-kit/guest';",
        "import { defineHostElements } from 'platform-kit/host';",
        "import { TemplateFrame } from 'platform-kit/host/core';",
        "import { createSignalingServer } from 'platform-kit/signaling';",
        "import { platformKit } from 'platform-kit/vite';",
        'export const used = [InstantRemixing, FeedSdk, defineHostElements, TemplateFrame, createSignalingServer, platformKit];',
        "export const title: unknown = new InstantRemixing().get(['card', 'title']);",
      ].join('\n'),
    );
    try {
      const options: ts.CompilerOptions = {
        module: ts.ModuleKind.CommonJS,
        moduleResolution: ts.ModuleResolutionKind.Node10,
        target: ts.ScriptTarget.ES2020,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        strict: true,
        skipLibCheck: true,
        noEmit: true,
        types: [],
      };
      const program = ts.createProgram({ rootNames: [file], options });
      const source = program.getSourceFile(file);
      assert.ok(source);
      const problems = [...program.getSemanticDiagnostics(source)].map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      assert.deepEqual(problems, []);
    } finally {
      await rm(consumer, { recursive: true, force: true });
    }
  });

  it('loads the entries for templates of the original SDK by name: compat/vcc, compat/dispatch, compat/vcc-backend (issue 24)', async () => {
    const vcc = await import('platform-kit/compat/vcc');
    assert.equal(typeof vcc.InstantRemixing.prototype.addListener, 'function');
    assert.equal(typeof vcc.InstantRemixing.prototype.onValueChanged, 'function');
    assert.equal(typeof vcc.FeedSdk, 'function');
    assert.deepEqual(Object.keys(vcc.default.config), ['metadata', 'serviceMap']);
    for (const method of ['pageLoad', 'on', 'request', 'pwaPrompt', 'enableConfigDidChange'] as const) assert.equal(typeof vcc.default[method], 'function');
    const dispatch = await import('platform-kit/compat/dispatch');
    assert.equal(dispatch.DISPATCH_EVENT.CONNECTED_CLIENTS_CHANGED, '@@KOJI_DISPATCH/CONNECTED_CLIENTS_CHANGED');
    assert.equal(typeof dispatch.default, 'function');
    const backend = await import('platform-kit/compat/vcc-backend');
    assert.equal(typeof backend.VccMiddleware.express, 'function');
    // The kit's own entries are unchanged: no original names there.
    const guest = (await import('platform-kit/guest')) as Record<string, unknown>;
    assert.equal('DISPATCH_EVENT' in guest, false);
    assert.equal('addListener' in (guest['InstantRemixing'] as { prototype: object }).prototype, false);
  });

  it('loads the Vite plugin by name', async () => {
    const vite = await import('platform-kit/vite');
    assert.equal(typeof vite.platformKit, 'function');
    assert.equal(typeof vite.default, 'function');
  });
});
