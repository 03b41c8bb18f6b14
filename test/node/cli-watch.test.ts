import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { CustomizationBuildResult } from '../../cli/build-customization.js';
import { watchCustomization, type CustomizationWatcher } from '../../cli/watch.js';
import { makeTemplate, type TempTemplate } from './cli-support.js';

/** The spec'd budget: a rebuild within 300 ms of a write. Asserted loosely (CI machines stall), reported exactly. */
const REBUILD_BUDGET_MS = 300;
/** How long a test waits before it calls a rebuild missing. */
const DEADLINE_MS = 2_000;

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Watched {
  readonly template: TempTemplate;
  readonly watcher: CustomizationWatcher;
  readonly builds: CustomizationBuildResult[];
  readonly errors: unknown[];
  /** Resolves with the first build after now that satisfies `check`, and the time it took. */
  nextBuild(check: (result: CustomizationBuildResult) => boolean, what: string): Promise<{ result: CustomizationBuildResult; elapsedMs: number }>;
}

async function watched(fixture?: string): Promise<Watched> {
  const template = await makeTemplate(fixture);
  const builds: CustomizationBuildResult[] = [];
  const errors: unknown[] = [];
  const waiters = new Set<(result: CustomizationBuildResult) => void>();
  const watcher = watchCustomization({
    root: template.root,
    env: {},
    onBuild(result) {
      builds.push(result);
      for (const waiter of waiters) waiter(result);
    },
    onError: (error) => errors.push(error),
  });
  cleanups.push(async () => {
    await watcher.close();
    await template.remove();
  });
  await watcher.ready;
  return {
    template,
    watcher,
    builds,
    errors,
    nextBuild(check, what) {
      const started = performance.now();
      return new Promise((resolve, reject) => {
        const timeout = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no rebuild with ${what} within ${DEADLINE_MS} ms`));
        }, DEADLINE_MS);
        const waiter = (result: CustomizationBuildResult): void => {
          if (!check(result)) return;
          clearTimeout(timeout);
          waiters.delete(waiter);
          resolve({ result, elapsedMs: performance.now() - started });
        };
        waiters.add(waiter);
      });
    },
  };
}

function title(result: CustomizationBuildResult): unknown {
  return result.customization.values['card']?.['title'];
}

describe('watchCustomization', () => {
  it('builds once when ready', async () => {
    const { watcher, builds } = await watched('basic');
    const first = await watcher.ready;
    assert.equal(builds.length, 1);
    assert.equal(title(first), 'Hello from the fixture');
    assert.match(await readFile(watcher.builder.modulePath, 'utf8'), /Hello from the fixture/);
  });

  it('rebuilds after a change, an added file and a deleted file', async (t) => {
    const { template, nextBuild } = await watched('basic');

    const changed = nextBuild((result) => title(result) === 'Changed', 'the changed title');
    await template.write('card.json', { card: { title: 'Changed' } });
    const change = await changed;
    t.diagnostic(`change rebuilt in ${change.elapsedMs.toFixed(0)} ms (budget ${REBUILD_BUDGET_MS} ms)`);

    const added = nextBuild((result) => result.customization.values['extra'] !== undefined, 'the added scope');
    await template.write('extra.json', { extra: { on: true } });
    const add = await added;
    assert.deepEqual(add.result.customization.values['extra'], { on: true });
    t.diagnostic(`add rebuilt in ${add.elapsedMs.toFixed(0)} ms`);

    const deleted = nextBuild((result) => result.customization.values['theme'] === undefined, 'the deleted scope gone');
    await template.delete('theme.json');
    const del = await deleted;
    t.diagnostic(`delete rebuilt in ${del.elapsedMs.toFixed(0)} ms`);

    for (const step of [change, add, del]) assert.ok(step.elapsedMs < DEADLINE_MS);
  });

  it('rebuilds within the 300 ms budget on a quiet machine', async (t) => {
    const { template, nextBuild } = await watched('basic');
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      const next = nextBuild((result) => title(result) === `Take ${i}`, `take ${i}`);
      await template.write('card.json', { card: { title: `Take ${i}` } });
      samples.push((await next).elapsedMs);
    }
    samples.sort((a, b) => a - b);
    const median = samples[Math.floor(samples.length / 2)] ?? Infinity;
    t.diagnostic(`rebuild after write: ${samples.map((ms) => ms.toFixed(0)).join(', ')} ms; median ${median.toFixed(0)} ms`);
    // The median, not the worst case: one stall of the test machine must not fail the suite.
    assert.ok(median < REBUILD_BUDGET_MS, `median rebuild ${median.toFixed(0)} ms is over ${REBUILD_BUDGET_MS} ms`);
  });

  it('keeps the last good values while a file is broken and reports the problem', async () => {
    const { template, nextBuild } = await watched('basic');
    const broken = nextBuild((result) => result.problems.length > 0, 'a problem');
    await template.write('card.json', '{ "card": ');
    const { result } = await broken;
    assert.equal(result.problems[0]?.file, '.platform/customization/card.json');
    assert.equal(title(result), 'Hello from the fixture');
    const fixed = nextBuild((next) => next.problems.length === 0 && title(next) === 'Back', 'the fix');
    await template.write('card.json', { card: { title: 'Back' } });
    await fixed;
  });

  it('picks up a .platform/customization directory created after it started', async () => {
    const { template, nextBuild, builds } = await watched();
    assert.equal(builds.length, 1);
    const created = nextBuild((result) => title(result) === 'Late', 'the late file');
    await template.write('card.json', { card: { title: 'Late' } });
    await created;
  });

  it('does not rebuild because of its own output or unrelated files', async () => {
    const { template, builds, nextBuild } = await watched('basic');
    const next = nextBuild((result) => title(result) === 'Once', 'the change');
    await template.write('card.json', { card: { title: 'Once' } });
    await next;
    const count = builds.length;
    await writeFile(join(template.root, 'unrelated.json'), '{}');
    await writeFile(join(template.root, '.platform/customization/notes.txt'), 'not json');
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(builds.length, count, 'the generated files and non-config files must not trigger builds');
  });

  it('folds a burst of writes into few builds and ends on the last content', async () => {
    const { template, builds, nextBuild } = await watched('basic');
    const before = builds.length;
    const last = nextBuild((result) => title(result) === 'Burst 9', 'the last write');
    for (let i = 0; i < 10; i++) await template.write('card.json', { card: { title: `Burst ${i}` } });
    await last;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(builds.length - before <= 5, `10 quick writes caused ${builds.length - before} builds`);
    assert.equal(title(builds[builds.length - 1] as CustomizationBuildResult), 'Burst 9');
  });

  it('stops on close: no build after it', async () => {
    const { template, watcher, builds } = await watched('basic');
    await watcher.close();
    const count = builds.length;
    await template.write('card.json', { card: { title: 'After close' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(builds.length, count);
  });
});
