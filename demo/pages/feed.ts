// The feed page: every template and every published remix, endless by
// repetition, in <platform-feed>. The feed draws Remix and Share itself
// (`actions="remix share"` in index.html): Remix opens the editor for the
// current item; Share opens the feed's share sheet. A published remix is its
// template plus values: the item carries them and the feed gives them to the
// template as a remix preview would. Templates learn who is looking with
// Platform.identity.getToken(): the feed asks this page's backend
// (GET /demo-api/identity-token), which vouches for the viewer.
import { defineHostElements, type FeedItem, type PlatformFeed, type ValueOverrides } from 'platform-kit/host';
import type { PublishedRemix } from '../catalog.js';
import { demoApi, demoIdentity, editorUrl, findTemplate, templateUrl } from './shared.js';

defineHostElements();
const feed = document.querySelector<PlatformFeed>('platform-feed')!;
const status = document.querySelector<HTMLElement>('.status')!;
// The wheel over the margins around the phone-shaped column moves the feed too (over the feed
// itself the feed already took it: handleWheel leaves a taken event alone).
document.querySelector<HTMLElement>('.feed-stage')!.addEventListener('wheel', (event) => feed.handleWheel(event), { passive: false });

/** One entry of the feed's cycle: a template, or a published remix of one. */
interface Entry {
  readonly key: string;
  readonly template: string;
  readonly title: string;
  readonly remix: PublishedRemix | null;
}

const data = await demoApi.feed();
const entries: Entry[] = [
  ...data.remixes.map((remix) => ({ key: remix.id, template: remix.template, title: remix.title, remix })),
  ...data.templates.map((template) => ({ key: template.id, template: template.id, title: template.title, remix: null })),
];
// `/?item=<key>`: that entry first (what a shared link and a just-published remix open).
const wanted = new URLSearchParams(location.search).get('item');
const first = entries.findIndex((entry) => entry.key === wanted);
if (first > 0) entries.unshift(...entries.splice(first, 1));
// A shared link to something gone says so, instead of quietly showing something else.
if (wanted !== null && first === -1) showLinkNotice(`There is no item "${wanted}" here (removed, or the link is wrong): the feed starts from the top.`);

function showLinkNotice(text: string): void {
  const notice = Object.assign(document.createElement('p'), { className: 'link-notice' });
  notice.setAttribute('role', 'alert');
  const dismiss = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Dismiss' });
  dismiss.addEventListener('click', () => notice.remove());
  notice.append(text, ' ', dismiss);
  document.querySelector('.feed-stage')!.prepend(notice);
}

const byItemId = new Map<string, Entry>();
function item(entry: Entry, round: number): FeedItem {
  const id = `${entry.key}~${round}`;
  byItemId.set(id, entry);
  return {
    id,
    url: templateUrl(entry.template, entry.remix ? { remix: entry.remix.id } : {}),
    projectId: entry.remix ? `${entry.template}.${entry.remix.id}` : entry.template,
    title: entry.title,
    shareUrl: `${location.origin}/?item=${encodeURIComponent(entry.key)}`,
    // The server stored what the editor published (plain JSON); the feed checks it again when the item is added.
    ...(entry.remix ? { values: entry.remix.values as ValueOverrides } : {}),
  };
}

// Endless by repetition: each time the feed runs low, one more round of every entry.
let round = 0;
feed.share = null; // always the feed's own share sheet (the system one differs per browser)
feed.getIdentityToken = demoIdentity;
feed.items = entries.map((entry) => item(entry, round));
feed.loader = () => {
  round++;
  return entries.map((entry) => item(entry, round));
};

feed.addEventListener('feed-focuschange', (event) => {
  const entry = byItemId.get((event as CustomEvent<{ item: FeedItem }>).detail.item.id ?? '');
  status.textContent = entry ? `${entry.title}${entry.remix ? ' · remix' : ''}` : '';
  document.body.dataset['current'] = entry?.key ?? '';
});
feed.addEventListener('feed-createremix', (event) => {
  const detail = (event as CustomEvent<{ item: FeedItem | undefined }>).detail;
  const entry = byItemId.get(detail.item?.id ?? '');
  if (!entry || !findTemplate(entry.template)) return;
  location.href = editorUrl(entry.template, entry.remix?.id);
});
feed.addEventListener('feed-skip', (event) => {
  const { item: skipped } = (event as CustomEvent<{ item: FeedItem }>).detail;
  status.textContent = `${skipped.title ?? 'A template'} did not load in time: skipped`;
});
feed.focus();
