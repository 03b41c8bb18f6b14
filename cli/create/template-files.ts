/**
 * The files of a new template project (`platform-kit create`): the smallest template that does
 * what a host expects: draws after ready() (the host's values arrive before it), calls load()
 * (a feed skips a template that does not), keeps its text clear of the feed's buttons, and joins
 * its shard at once (a preloaded feed item is away, listed by nobody, until it plays).
 */

/** The versions a new project's package.json asks for. */
export interface TemplateVersions {
  /** The kit's own version (a caret range of it). */
  readonly kit: string;
  /** The installed vite's version (a caret range of it). */
  readonly vite: string;
  /** The kit's own TypeScript range, as is: `npm run typecheck` runs tsc on the kit's types. */
  readonly typescript: string;
}

/** Path → content, relative to the new project's folder. */
export function templateFiles(name: string, versions: TemplateVersions): Record<string, string> {
  const packageJson = {
    name,
    private: true,
    version: '0.0.0',
    type: 'module',
    scripts: { dev: 'platform-kit dev', build: 'vite build', prebuild: 'platform-vcc preinstall-ts', typecheck: 'platform-vcc preinstall-ts && tsc --noEmit' },
    dependencies: { 'platform-kit': `^${versions.kit}` },
    devDependencies: { typescript: versions.typescript, vite: `^${versions.vite}` },
  };
  return {
    'package.json': `${JSON.stringify(packageJson, null, 2)}\n`,
    '.gitignore': 'node_modules/\ndist/\n.platform/generated/\n',
    'vite.config.ts': "import { defineConfig } from 'vite';\nimport { platformKit } from 'platform-kit/vite';\n\nexport default defineConfig({ plugins: [platformKit()] });\n",
    'tsconfig.json': `${JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable'], strict: true, noEmit: true, skipLibCheck: true }, include: ['src'] }, null, 2)}\n`,
    '.platform/customization/card.json': `${JSON.stringify(
      {
        card: { title: 'Hello from my template!', color: '#fde68a' },
        '@@editor': [
          {
            key: 'card',
            name: 'Card',
            fields: [
              { key: 'title', name: 'Title', type: 'text' },
              { key: 'color', name: 'Background', type: 'color' },
            ],
          },
        ],
      },
      null,
      2,
    )}\n`,
    'index.html': `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${name}</title>
<style>
  html, body { height: 100%; margin: 0; }
  body { font-family: system-ui, sans-serif; }
  main { box-sizing: border-box; height: 100%; display: flex; flex-direction: column; justify-content: center; align-items: center; gap: 1rem; text-align: center;
         padding: 1.5rem; padding-bottom: max(1.5rem, var(--platform-feed-inset-bottom, 0px)); } /* clear of the feed's buttons */
  h1 { margin: 0; font-size: 2rem; }
  h1.editable { outline: 2px dashed #6366f1; outline-offset: 4px; cursor: pointer; }
  p { margin: 0; color: #374151; }
</style>
</head>
<body>
<main><h1></h1><p id="players"></p></main>
<script type="module" src="/src/main.ts"></script>
</body>
</html>
`,
    'src/main.ts': `import { FeedSdk, InstantRemixing, Platform } from 'platform-kit/guest';

const remix = new InstantRemixing();
const feed = new FeedSdk();
const title = document.querySelector('h1')!;
const players = document.querySelector<HTMLElement>('#players')!;

function render(): void {
  title.textContent = remix.get(['card', 'title']);
  document.body.style.background = remix.get(['card', 'color']);
}
remix.onValueChanged(render); // the editor changed a value
remix.onSetRemixing((isRemixing) => title.classList.toggle('editable', isRemixing));
title.addEventListener('click', () => remix.onPresentControl(['card', 'title']));

// Multiplayer: join at once, preloaded in a feed too. Until it comes into focus this template is
// away (connected, listed by nobody); in focus it is here at once, its peers already linked. The
// list holds the players here (add { includeAway: true } for all). The host names the project.
const dispatch = Platform.dispatch;
dispatch.onConnectedClientsChanged((clients) => (players.textContent = \`\${clients.length} here\`));
dispatch.onError((error) => (players.textContent = error.message));
dispatch.connect().catch(() => undefined); // onError says why

// After every listener is set: the host's values arrive before ready() resolves, so draw then.
remix.ready().then(render);
feed.load(); // "I can be shown": a feed skips a template that never calls it
`,
  };
}
