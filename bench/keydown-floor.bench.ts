/**
 * The browser's own floor under the editor-keystroke benchmark: playwright
 * key presses into a plain `<input>` on an empty page (no kit, no framework),
 * timed from the keydown (event timestamp and listener) to the `input` event.
 * Whatever an editor does, a keystroke costs at least this before its code runs.
 * A diagnostic: it runs only when named (`npm run bench -- keydown-floor`).
 */
import { ms, stats, table, type BenchContext, type BenchOutcome } from './support/bench.js';

export const description = "Diagnostic: the browser's own keydown → input time in a plain <input> (the floor under editor-keystroke).";
export const onlyWhenNamed = true;

interface Gaps {
  readonly fromTimestamp: number[];
  readonly fromListener: number[];
}

export async function run(context: BenchContext): Promise<BenchOutcome> {
  const browser = await context.browser();
  const page = await browser.newPage();
  try {
    await page.setContent('<input id="field">');
    await page.evaluate(() => {
      const gaps: Gaps = { fromTimestamp: [], fromListener: [] };
      (window as unknown as { gaps: Gaps }).gaps = gaps;
      const field = document.getElementById('field') as HTMLInputElement;
      let keydownStamp = 0;
      let keydownSeen = 0;
      field.addEventListener('keydown', (event) => {
        keydownStamp = event.timeStamp;
        keydownSeen = performance.now();
      });
      field.addEventListener('input', () => {
        const now = performance.now();
        gaps.fromTimestamp.push(now - keydownStamp);
        gaps.fromListener.push(now - keydownSeen);
      });
      field.focus();
    });
    const count = Math.max(300, Math.min(context.options.samples, 2_000));
    for (let i = 0; i < count; i++) await page.keyboard.press(String.fromCharCode(97 + (i % 26)));
    const gaps = await page.evaluate(() => (window as unknown as { gaps: Gaps }).gaps);
    const fromTimestamp = stats(gaps.fromTimestamp);
    const fromListener = stats(gaps.fromListener);
    context.log(
      table(
        ['plain <input>, playwright key presses', 'n', 'median', 'p99'],
        [
          ['keydown event time → input event', fromTimestamp],
          ['keydown listener → input event', fromListener],
        ].map(([name, figures]) => {
          const s = figures as typeof fromTimestamp;
          return [name as string, String(s.count), ms(s.median), ms(s.p99)];
        }),
      ),
    );
    return { targets: [], data: gaps };
  } finally {
    await page.close();
  }
}
