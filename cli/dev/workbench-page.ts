/**
 * The workbench's one page: a header with the four panes' tabs (Editor, Feed, Players, Log),
 * the checks and the overlay; its module (workbench/main.ts) fills them with the kit's elements.
 */
import { workbenchEntry } from './dev-vite.js';

const STYLE = `
*{box-sizing:border-box}
html,body{height:100%;margin:0}
body{display:grid;grid-template-rows:auto auto 1fr;font:14px system-ui,sans-serif;background:#f3f4f6;color:#111827}
header{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem .75rem;padding:.5rem .75rem;background:#111827;color:#f9fafb}
header h1{font-size:1rem;margin:0 .5rem 0 0}
nav{display:flex;gap:.25rem;flex-wrap:wrap}
nav button{font:inherit;color:inherit;background:#374151;border:0;border-radius:.375rem;padding:.5rem .75rem;min-height:44px;cursor:pointer}
nav button[aria-selected="true"]{background:#6366f1}
#checks{display:flex;flex-wrap:wrap;gap:.25rem .5rem;padding:.375rem .75rem;background:#fff;border-bottom:1px solid #e5e7eb;font-size:.8125rem}
#checks span{white-space:nowrap}
#checks .ok::before{content:"✓ ";color:#15803d}
#checks .warn{color:#b45309}
#checks .warn::before{content:"⚠ "}
#checks .wait{color:#6b7280}
#checks .wait::before{content:"… "}
main{min-height:0;overflow:auto}
section[hidden]{display:none!important}
#editor-pane{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:1rem;padding:1rem;height:100%}
#editor-pane .frame,#editor-pane .phone-column{display:flex;flex-direction:column;min-height:0;min-width:0}
#editor-pane h2,#players-pane h2,#feed-pane h2{font-size:.8125rem;margin:0 0 .375rem;color:#4b5563;font-weight:600}
#editor-pane platform-editor{flex:1;min-height:420px;background:#fff;border:1px solid #d1d5db;border-radius:.5rem;overflow:hidden}
.phone{width:390px;height:844px;max-height:calc(100vh - 9rem);border:10px solid #111827;border-radius:2rem;overflow:hidden;background:#fff;flex:none}
.phone>*{height:100%}
.stale{margin:0 0 .5rem;padding:.5rem .75rem;border-radius:.375rem;background:#fef3c7;color:#92400e}
#feed-pane{display:flex;flex-direction:column;align-items:center;padding:1rem;height:100%}
#players-pane{padding:1rem}
#players-pane .bar{display:flex;align-items:center;gap:.5rem;margin-bottom:.75rem}
#players-pane .bar button{font:inherit;min-height:44px;min-width:44px;border-radius:.375rem;border:1px solid #d1d5db;background:#fff}
#players{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:.75rem}
#players figure{margin:0;display:flex;flex-direction:column}
#players figcaption{font-size:.8125rem;color:#374151;padding:.25rem 0}
#players platform-feed{display:block;width:100%;height:480px;border:1px solid #d1d5db;border-radius:.5rem;overflow:hidden;background:#fff}
#log-pane{padding:1rem}
#log{margin:0;padding:0;list-style:none;font:12px ui-monospace,monospace}
#log li{padding:.25rem .5rem;border-bottom:1px solid #e5e7eb;overflow-wrap:anywhere}
#log time{color:#6b7280;margin-right:.5rem}
#log b{color:#4338ca;margin-right:.5rem}
#overlay{position:fixed;inset:0;z-index:10;display:flex;align-items:flex-start;justify-content:center;padding:3rem 1rem;background:rgba(17,24,39,.6)}
#overlay[hidden]{display:none}
#overlay div{max-width:48rem;width:100%;background:#1f2937;color:#fecaca;border-top:6px solid #ef4444;border-radius:.5rem;padding:1rem 1.25rem;font:13px ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
#overlay h2{font:600 1rem system-ui,sans-serif;color:#fff;margin:0 0 .75rem}
#overlay p{font:13px system-ui,sans-serif;color:#d1d5db;margin:.75rem 0 0}
#overlay button{margin-top:.75rem;font:inherit;min-height:44px;padding:0 1rem;border-radius:.375rem;border:0}
@media (max-width:720px){
  #editor-pane{grid-template-columns:1fr;padding:0}
  #editor-pane .phone-column{display:none}
  #editor-pane .frame h2{display:none}
  #editor-pane platform-editor{border:0;border-radius:0;min-height:0;flex:1}
  #checks{font-size:.75rem;padding:.25rem .5rem}
  #feed-pane{padding:0}
  #feed-pane h2{display:none}
  #feed-pane .phone{width:100%;height:100%;max-height:none;border:0;border-radius:0}
  #players-pane{padding:.5rem}
}
`;

/** The page's HTML, before Vite's transform. */
export function workbenchHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>platform-kit dev</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>platform-kit dev</h1>
<nav role="tablist" aria-label="Workbench">
<button role="tab" data-pane="editor" aria-selected="true">Editor</button>
<button role="tab" data-pane="feed" aria-selected="false">Feed</button>
<button role="tab" data-pane="players" aria-selected="false">Players</button>
<button role="tab" data-pane="log" aria-selected="false">Log</button>
</nav></header>
<div id="checks" aria-live="polite"></div>
<main>
<section id="editor-pane" data-pane="editor"></section>
<section id="feed-pane" data-pane="feed" hidden></section>
<section id="players-pane" data-pane="players" hidden></section>
<section id="log-pane" data-pane="log" hidden><ol id="log"></ol></section>
</main>
<div id="overlay" role="alertdialog" aria-labelledby="overlay-title" hidden></div>
<script type="module" src="${workbenchEntry()}"></script>
</body>
</html>
`;
}
