// The vault: a template with a backend (backend.ts). "Open the vault" calls
// the template's own route; the backend resolves the secret VCC with the
// Keystore and signs a CDN URL for the treasure. The template never sees the
// secret, only its length and digest, and the picture's URL expires. In a
// host that gives identity (the demo's feed), the request carries the
// viewer's user token and the backend answers who opened it.
import { InstantRemixing, Platform } from 'platform-kit/guest';
import { joinFeed } from '../shared/feed.js';
import { mountRemixControls } from '../shared/remix-controls.js';

interface OpenAnswer {
  readonly label: string;
  readonly remix: boolean;
  readonly secret: { readonly length: number; readonly sha256: string };
  readonly media: { readonly url: string; readonly expiresAt: number };
  /** The viewer's name, as the backend resolved the token; null without one. */
  readonly viewer: string | null;
}

/** The viewer's user token from the host, or null where the host gives none (standalone, the editor). */
async function userToken(): Promise<string | null> {
  try {
    return (await Platform.identity.getToken()).userToken;
  } catch {
    return null;
  }
}

const remix = new InstantRemixing();
const $ = <T extends Element>(selector: string): T => document.querySelector<T>(selector)!;
const openButton = $<HTMLButtonElement>('.open');
const errorLine = $<HTMLElement>('.error');
let expiryTimer = 0;

function render(): void {
  const label = remix.get(['vault', 'label']);
  $<HTMLElement>('h1').textContent = typeof label === 'string' ? label : 'The vault';
  const color = remix.get(['vault', 'color']);
  document.body.style.setProperty('--door', typeof color === 'string' ? color : '#2b8a3e');
}

async function open(): Promise<void> {
  openButton.disabled = true;
  errorLine.hidden = true;
  document.body.dataset['state'] = 'opening';
  try {
    // A published remix passes its id on: the platform forwards the remix's values to the backend, signed.
    const remixId = new URLSearchParams(location.search).get('remix');
    const token = await userToken();
    const response = await fetch(`./api/open${remixId ? `?remix=${encodeURIComponent(remixId)}` : ''}`, { cache: 'no-store', headers: token ? { 'x-user-token': token } : {} });
    const body = (await response.json()) as OpenAnswer & { error?: { message?: string } };
    if (!response.ok) throw new Error(body.error?.message ?? `the backend answered ${response.status}`);
    $<HTMLImageElement>('.treasure').src = body.media.url;
    // The backend's own view of the values: a published remix's, forwarded by the platform.
    $<HTMLElement>('.opened').textContent = `${body.label}${body.remix ? ' (a remix: its values reached the backend)' : ''}`;
    $<HTMLElement>('.viewer').textContent = body.viewer ? `opened by ${body.viewer}` : '';
    $<HTMLElement>('.viewer').hidden = !body.viewer;
    $<HTMLElement>('.secret').textContent = `${body.secret.length} characters, sha256 ${body.secret.sha256}…`;
    $<HTMLElement>('.secret').dataset['sha256'] = body.secret.sha256;
    $<HTMLElement>('.url').textContent = body.media.url;
    const tick = (): void => {
      const left = Math.max(0, Math.round((body.media.expiresAt - Date.now()) / 1000));
      $<HTMLElement>('.expiry').textContent = left > 0 ? `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}` : 'expired: open again for a new link';
    };
    window.clearInterval(expiryTimer);
    tick();
    expiryTimer = window.setInterval(tick, 1_000);
    $<HTMLElement>('.result').hidden = false;
    document.body.dataset['state'] = 'open';
  } catch (error) {
    errorLine.textContent = `The vault stays shut: ${(error as Error).message}`;
    errorLine.hidden = false;
    document.body.dataset['state'] = 'error';
  } finally {
    openButton.disabled = false;
  }
}

openButton.addEventListener('click', () => {
  if (!remixing()) void open();
});
remix.onValueChanged(render);
const remixing = mountRemixControls(remix);
const feed = joinFeed();
render();
void remix.ready().then(render);
void feed.load();
