/**
 * What a template's iframe may do: its permissions policy (`allow`) and its
 * sandbox. TemplateFrame applies both to the iframe it makes or adopts, before
 * the iframe's first navigation, unless the page set them itself.
 */

/** The `allow` attribute a template's iframe gets when neither the page nor the options name one. */
export const DEFAULT_ALLOW = 'autoplay; fullscreen; clipboard-write';

/**
 * The sandbox of a template's iframe: everything a page may do, but navigate
 * the page that embeds it. Why: an iframe that is not sandboxed may, once
 * the user has tapped it, navigate the top page (`top.location`,
 * `window.open(url, '_top')`, a `target=_top` link), so any template could
 * send the viewer from the host page to a page of its choosing. No
 * `allow-top-navigation*`; `allow-same-origin` keeps the template its own
 * origin (its storage, and the origin its hello is checked against), which is
 * safe for a frame of another origin. Tokens this browser does not know are left out.
 */
const SANDBOX_TOKENS = (
  'allow-scripts allow-same-origin allow-forms allow-modals allow-popups allow-popups-to-escape-sandbox allow-downloads ' +
  'allow-pointer-lock allow-orientation-lock allow-presentation allow-storage-access-by-user-activation'
).split(' ');

/**
 * Gives `iframe` the permissions policy `allow` (default {@link DEFAULT_ALLOW}) and the sandbox of
 * {@link SANDBOX_TOKENS} this browser knows, each only where the iframe has no such attribute yet:
 * an adopted iframe's own `allow` or `sandbox` is the page's choice.
 */
export function limitFrame(iframe: HTMLIFrameElement, allow: string | undefined): void {
  if (!iframe.hasAttribute('allow')) iframe.setAttribute('allow', allow ?? DEFAULT_ALLOW);
  if (!iframe.hasAttribute('sandbox')) iframe.setAttribute('sandbox', SANDBOX_TOKENS.filter((token) => iframe.sandbox.supports(token)).join(' '));
}
