/**
 * What `platform-kit dev` adds to the template's pages (and only in dev): a probe that reports
 * what the host cannot see across the origin boundary, to the workbench's checks:
 *
 * - long tasks over 200 ms (a feed's swipe stalls behind them);
 * - text drawn under the feed's insets: the corner the feed's Remix and Share buttons cover
 *   (`--platform-feed-inset-right` and `-bottom`, set by FeedSdk), sampled a few times.
 *
 * The workbench names each frame in its URL (`?pkdev=editor`, `feed`, `player-2`), so a report
 * says which frame it came from. Plain JavaScript, no import: it runs before the template's code.
 */

/** Longest task a template may run before the check reports it, in ms. */
export const LONG_TASK_MS = 200;

export const PROBE_SCRIPT = `// platform-kit dev probe (not in a build)
const frame = new URLSearchParams(location.search).get('pkdev');
if (frame) {
  const report = (kind, detail) => fetch('/__platform/report', { method: 'POST', body: JSON.stringify({ frame, kind, detail }) }).catch(() => {});
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.duration > ${LONG_TASK_MS}) report('longtask', Math.round(entry.duration) + ' ms');
    }).observe({ type: 'longtask', buffered: true });
  } catch {}
  let reportedInsets = false;
  const checkInsets = () => {
    if (reportedInsets) return;
    const style = getComputedStyle(document.documentElement);
    const right = parseFloat(style.getPropertyValue('--platform-feed-inset-right')) || 0;
    const bottom = parseFloat(style.getPropertyValue('--platform-feed-inset-bottom')) || 0;
    if (right <= 0 || bottom <= 0) return;
    const width = innerWidth, height = innerHeight;
    for (let i = 1; i <= 4; i++) for (let j = 1; j <= 4; j++) {
      const x = width - (right * i) / 5, y = height - (bottom * j) / 5;
      for (const element of document.elementsFromPoint(x, y)) {
        if (element === document.body || element === document.documentElement) continue;
        const text = [...element.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim() !== '');
        if (text || element.tagName === 'BUTTON' || element.tagName === 'INPUT') {
          reportedInsets = true;
          report('insets', '<' + element.tagName.toLowerCase() + '> at ' + Math.round(x) + ',' + Math.round(y) + ' is under the feed\\'s buttons (' + right + ' × ' + bottom + ' px corner)');
          return;
        }
      }
    }
  };
  addEventListener('load', () => { for (const delay of [500, 1500, 3000]) setTimeout(checkInsets, delay); });
  addEventListener('resize', () => setTimeout(checkInsets, 300));
}
`;

/** The feed's neighbour: a template of the kit's own, so the author's has an item before or after it. */
export const NEIGHBOUR_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Neighbour</title>
<style>html,body{height:100%;margin:0}body{display:grid;place-items:center;background:#1f2937;color:#e5e7eb;font:16px system-ui,sans-serif;text-align:center}p{max-width:18rem;padding:1rem}</style>
</head>
<body><p><strong>A neighbour</strong><br>Another template of the feed, so your template is preloaded beside it and comes into focus as in a real feed. Swipe or press ↑ ↓.</p>
<script type="module">import { FeedSdk } from 'platform-kit/guest'; new FeedSdk().load();</script>
</body>
</html>
`;
