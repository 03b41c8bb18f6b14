/** What the demo's host pages share: where templates live, and the demo API. */
import { createIdentityHandler, type ValueOverrides } from 'platform-kit/host';
import { DEMO_TEMPLATES, type DemoFeed, type DemoTemplate, type PublishedRemix } from '../catalog.js';

/**
 * The templates' origin: the same server under its other loopback name, so a
 * host page on localhost embeds templates from 127.0.0.1 (and the other way
 * round when the page was opened on 127.0.0.1): always two origins.
 */
export function templateOrigin(): string {
  const other = location.hostname === '127.0.0.1' ? 'localhost' : '127.0.0.1';
  return `${location.protocol}//${other}${location.port ? `:${location.port}` : ''}`;
}

/** URL of a template, with query parameters. */
export function templateUrl(id: string, params: Record<string, string> = {}): string {
  const url = new URL(`/templates/${id}/`, templateOrigin());
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

export function findTemplate(id: string | null): DemoTemplate | undefined {
  return DEMO_TEMPLATES.find((template) => template.id === id);
}

/** The editor page for a template, starting from a published remix when given. */
export function editorUrl(template: string, from?: string | null): string {
  const url = new URL('/editor.html', location.origin);
  url.searchParams.set('template', template);
  if (from) url.searchParams.set('from', from);
  return url.toString();
}

async function json<T>(response: Response): Promise<T> {
  const body = (await response.json()) as T & { error?: { message?: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `the demo server answered ${response.status}`);
  return body;
}

export const demoApi = {
  feed: (): Promise<DemoFeed> => fetch('/demo-api/feed', { cache: 'no-store' }).then((response) => json<DemoFeed>(response)),
  remix: (id: string): Promise<PublishedRemix> => fetch(`/demo-api/remixes/${encodeURIComponent(id)}`).then((response) => json<PublishedRemix>(response)),
  publish: (input: { template: string; title: string; values: ValueOverrides; parent: string | null }): Promise<PublishedRemix> =>
    fetch('/demo-api/remixes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) }).then((response) => json<PublishedRemix>(response)),
  preview: async (id: string, input: { template: string; values: ValueOverrides }): Promise<void> => {
    const response = await fetch(`/demo-api/previews/${encodeURIComponent(id)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
    if (!response.ok) await json(response);
  },
  upload: (file: File, signal: AbortSignal): Promise<{ url: string }> =>
    fetch('/demo-api/upload', { method: 'PUT', headers: { 'content-type': file.type || 'application/octet-stream' }, body: file, signal }).then((response) =>
      json<{ url: string }>(response),
    ),
  storeSecret: (value: string): Promise<{ keyPath: string }> =>
    fetch('/demo-api/secrets', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value }) }).then((response) =>
      json<{ keyPath: string }>(response),
    ),
};

/**
 * The viewer's identity for the templates (`Platform.identity.getToken()`): this page's backend
 * vouches for a demo guest (a cookie keeps who) with the platform's admin key, which never
 * reaches the browser. One handler per page: frames that ask together share one request.
 */
export const demoIdentity = createIdentityHandler({
  fetchToken: async () => {
    const response = await fetch('/demo-api/identity-token', { credentials: 'same-origin', cache: 'no-store' });
    if (!response.ok) throw new Error(`the demo's token route answered ${response.status}`);
    // Any JSON: createIdentityHandler checks the answer itself (parseIdentityTokenResult).
    return (await response.json()) as never;
  },
});
