/**
 * The viewing context of a template: the `context` query parameter
 * (spec: customization.md, query parameters) and `feedDebug`.
 */

/** Contexts a host may load a template in; anything else reads as `default`. */
export const VIEWING_CONTEXTS = ['about', 'admin', 'remix', 'sticker'] as const;

/**
 * Where the template is shown: `about` (remix landing page), `admin` (the
 * creator's tools), `remix` (during a remix), `sticker` (embedded small in
 * another project), or `default` (the template itself, in the feed or alone).
 */
export type ViewingContext = (typeof VIEWING_CONTEXTS)[number] | 'default';

function searchParams(url?: string | URL): URLSearchParams {
  if (url !== undefined) return new URL(url, 'http://localhost/').searchParams;
  return typeof location === 'undefined' ? new URLSearchParams() : new URLSearchParams(location.search);
}

/** Reads the `context` query parameter of `url` (default: this page). Unknown or missing values read as `default`. */
export function getViewingContext(url?: string | URL): ViewingContext {
  const value = searchParams(url).get('context');
  return (VIEWING_CONTEXTS as readonly string[]).includes(value ?? '') ? (value as ViewingContext) : 'default';
}

/** True when the template was opened with `feedDebug=true` (the feed loads it 10 times). */
export function isFeedDebug(url?: string | URL): boolean {
  return searchParams(url).get('feedDebug') === 'true';
}

/** Returns `url` with the `context` query parameter set (hosts use this to load a template in a context). */
export function withViewingContext(url: string | URL, context: ViewingContext): string {
  const result = new URL(url, typeof location === 'undefined' ? 'http://localhost/' : location.href);
  if (context === 'default') result.searchParams.delete('context');
  else result.searchParams.set('context', context);
  return result.toString();
}
