// What `npm pack` puts in the package (issue 17): every local file the README and the docs pages
// link to or show (their screenshots, each other: issue 25 moved most of the README to docs/) is
// in it, so a page read on the registry or in node_modules has no broken image or link; every
// relative link points at a file that exists and, with a #fragment, at a heading of that page;
// and no test, fixture or demo file is in the package.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { documentationPages } from '../readme-stubs.js';
import { REPO_ROOT } from './cli-support.js';

const run = promisify(execFile);

async function packedFiles(): Promise<Set<string>> {
  // --ignore-scripts: the pack must not rebuild dist (the suite's own build did).
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
  const [pack] = JSON.parse(stdout) as { files: { path: string }[] }[];
  return new Set(pack!.files.map((file) => file.path));
}

/** A page's text without fenced code blocks (`[x](y)` inside code is code, not a link). */
function withoutFences(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** A relative link of a page: where it was written, the file it names (from the repository root) and its fragment. */
interface LocalLink {
  readonly page: string;
  readonly written: string;
  readonly file: string;
  readonly fragment: string;
}

/** The page's relative links and images: `[text](path#fragment)` and `![alt](path)`. */
function localLinks(page: string, markdown: string): LocalLink[] {
  const text = withoutFences(markdown).replace(/`[^`\n]*`/g, '');
  const links: LocalLink[] = [];
  for (const match of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const written = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(written)) continue; // https:, mailto:
    const [path = '', fragment = ''] = written.split('#');
    const file = path === '' ? page : posix.normalize(posix.join(posix.dirname(page), path));
    links.push({ page, written, file, fragment });
  }
  return links;
}

/** The anchors GitHub makes for a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutFences(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const text = match[1]!.replace(/`([^`]*)`/g, '$1').replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

async function allLinks(): Promise<{ links: LocalLink[]; texts: Map<string, string> }> {
  const texts = new Map<string, string>();
  const links: LocalLink[] = [];
  for (const page of await documentationPages(REPO_ROOT)) {
    const text = await readFile(join(REPO_ROOT, page), 'utf8');
    texts.set(page, text);
    links.push(...localLinks(page, text));
  }
  return { links, texts };
}

describe('the npm package', { timeout: 120_000 }, () => {
  it('holds every local file the README and docs/*.md link to or show, and no tests, fixtures or demo', async () => {
    const [files, { links }] = await Promise.all([packedFiles(), allLinks()]);
    const targets = [...new Set(links.map((link) => link.file))];
    assert.ok(
      targets.some((target) => target.endsWith('.png')),
      `the pages show screenshots: ${targets.join(', ')}`,
    );
    for (const page of ['docs/templates.md', 'docs/hosts.md', 'docs/server.md', 'docs/original-sdk.md', 'docs/reference.md']) {
      assert.ok(targets.includes(page), `the README or a page links to ${page}`);
    }
    const missing = targets.filter((target) => !files.has(target));
    assert.deepEqual(missing, [], `the pages link to files the package lacks: ${missing.join(', ')}`);
    const stray = [...files].filter((path) => /^(test|demo|bench|test-artifacts)\//.test(path));
    assert.deepEqual(stray, []);
    assert.ok(files.has('dist/guest/index.js') && files.has('package.json'));
  });

  it('every relative link of the README and docs/*.md names a file that exists, and a heading of it', async () => {
    const { links, texts } = await allLinks();
    const broken: string[] = [];
    for (const link of links) {
      const where = `${link.page}: (${link.written})`;
      if (link.file.startsWith('..') || posix.isAbsolute(link.file)) {
        broken.push(`${where} leaves the repository`);
        continue;
      }
      if (!existsSync(join(REPO_ROOT, link.file))) {
        broken.push(`${where} names ${link.file}, which does not exist`);
        continue;
      }
      if (link.fragment === '') continue;
      const target = texts.get(link.file) ?? (link.file.endsWith('.md') ? await readFile(join(REPO_ROOT, link.file), 'utf8') : undefined);
      if (target === undefined) broken.push(`${where} has a #fragment into a file that is not a page`);
      else if (!headingAnchors(target).has(link.fragment)) broken.push(`${where}: ${link.file} has no heading #${link.fragment}`);
    }
    assert.ok(links.length > 20, `found ${links.length} links`);
    assert.deepEqual(broken, []);
  });
});
