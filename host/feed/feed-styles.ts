/**
 * The feed's styles, inserted once into the container a FeedController
 * draws in (a shadow root under `<platform-feed>`, or any element of a page
 * that uses the controller alone). Class names carry a `pk-` prefix so they
 * cannot collide with a page's own when the controller draws in light DOM.
 * Custom properties (`--pk-feed-*`) let a page restyle the feed.
 *
 * The viewport and the items clip (`overflow: clip`), not hide: an element
 * with `overflow: hidden` is still a scroll container, which a template's
 * `scrollIntoView()` (or any scroll it chains) scrolls, leaving its item cut
 * off. A clipping element cannot be scrolled; the feed moves only by its
 * track's transform (feed-track.ts also undoes a scroll where clip is unknown).
 *
 * Items are opaque: a neighbour drawn under the current item (`is-warming`,
 * feed-window.ts) must not show through a template with a transparent page.
 */
export const FEED_STYLES = `
.pk-feed-viewport { position: relative; overflow: hidden; overflow: clip; width: 100%; height: 100%; contain: strict; background: var(--pk-feed-background, #000); color: var(--pk-feed-color, #fff); outline: none; }
.pk-feed-track { position: absolute; inset: 0; will-change: transform; }
.pk-feed-item { position: absolute; left: 0; width: 100%; height: 100%; overflow: hidden; overflow: clip; background: var(--pk-feed-background, #000); }
.pk-feed-item.is-warming { z-index: -1; }
.pk-feed-frame { position: absolute; inset: 0; width: 100%; height: 100%; border: 0; display: block; opacity: 0; transition: opacity 120ms linear; background: transparent; }
.pk-feed-item.is-loaded > .pk-feed-frame, .pk-sheet-body.is-loaded > .pk-feed-frame, .pk-feed-item.is-unframeable > .pk-feed-frame, .pk-sheet-body.is-unframeable > .pk-feed-frame { opacity: 1; }
.pk-feed-loading { position: absolute; inset: 0; display: grid; place-items: center; gap: 12px; align-content: center; font: 14px/1.4 system-ui, sans-serif; touch-action: none; }
.pk-feed-item.is-loaded > .pk-feed-loading, .pk-sheet-body.is-loaded > .pk-feed-loading, .is-unframeable > .pk-feed-loading { display: none; }
.pk-feed-spinner { width: 32px; height: 32px; border-radius: 50%; border: 3px solid var(--pk-feed-spinner-track, rgba(255,255,255,.25)); border-top-color: var(--pk-feed-spinner, #fff); animation: pk-feed-spin 0.9s linear infinite; }
@keyframes pk-feed-spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .pk-feed-spinner { animation-duration: 3s; } .pk-feed-frame { transition: none; } }
.pk-feed-message { position: absolute; inset: 0; display: grid; place-items: center; padding: 24px; text-align: center; font: 15px/1.4 system-ui, sans-serif; color: var(--pk-feed-color, #fff); }
.pk-feed-message[hidden] { display: none; }
.pk-feed-offer { position: absolute; left: 12px; right: 12px; bottom: 12px; padding: 12px 16px; border-radius: 12px; background: var(--pk-feed-sheet-background, #1c1c1e); color: var(--pk-feed-sheet-color, #fff); font: 14px/1.4 system-ui, sans-serif; display: flex; gap: 12px; align-items: center; justify-content: space-between; touch-action: none; box-shadow: 0 4px 24px rgba(0,0,0,.4); }
.pk-feed-offer a { color: inherit; font-weight: 600; }
.pk-sheet, .pk-share { position: absolute; inset: 0; z-index: 2; }
.pk-sheet-backdrop { position: absolute; inset: 0; background: rgba(0,0,0,.45); touch-action: none; }
.pk-sheet-panel { position: absolute; left: 0; right: 0; bottom: 0; top: var(--pk-feed-sheet-top, 6%); display: flex; flex-direction: column; border-radius: 16px 16px 0 0; overflow: hidden; overflow: clip; background: var(--pk-feed-sheet-background, #1c1c1e); color: var(--pk-feed-sheet-color, #fff); font: 14px/1.4 system-ui, sans-serif; }
.pk-sheet-bar { display: flex; justify-content: flex-end; padding: 6px; touch-action: none; }
.pk-sheet-bar button, .pk-share-panel button { font: inherit; color: inherit; background: rgba(255,255,255,.12); border: 0; border-radius: 8px; padding: 8px 14px; cursor: pointer; }
.pk-sheet-body { position: relative; flex: 1; }
.pk-share-panel { top: auto; padding: 16px; gap: 12px; }
.pk-share-panel h2 { margin: 0; font-size: 16px; }
.pk-share-panel input { font: inherit; padding: 8px; border-radius: 8px; border: 1px solid rgba(255,255,255,.25); background: transparent; color: inherit; }
.pk-share-actions { display: flex; gap: 8px; justify-content: flex-end; }
.pk-feed-actions { position: absolute; z-index: 1; right: 8px; bottom: calc(16px + env(safe-area-inset-bottom, 0px)); display: flex; flex-direction: column; align-items: center; gap: 14px; }
.pk-feed-actions[hidden] { display: none; }
.pk-feed-actions.is-idle { visibility: hidden; }
.pk-actions-rail .pk-feed-track { right: var(--pk-feed-rail-width, 80px); }
.pk-actions-rail .pk-feed-actions { right: 0; width: var(--pk-feed-rail-width, 80px); }
.pk-actions-overlay .pk-feed-offer { right: calc(var(--pk-feed-inset-right, 0px) + 4px); }
.pk-feed-action { display: flex; flex-direction: column; align-items: center; gap: 4px; min-width: 48px; margin: 0; padding: 0; border: 0; background: none; color: var(--pk-feed-action-color, #fff); font: 600 12px/1.25 system-ui, sans-serif; cursor: pointer; touch-action: manipulation; -webkit-tap-highlight-color: transparent; }
.pk-feed-action-icon { display: grid; place-items: center; width: 48px; height: 48px; border-radius: 50%; background: var(--pk-feed-action-background, rgba(0,0,0,.6)); box-shadow: 0 0 0 1px rgba(255,255,255,.35), 0 2px 8px rgba(0,0,0,.3); transition: transform 100ms; }
.pk-feed-action-label { padding: 1px 8px; border-radius: 999px; background: var(--pk-feed-action-background, rgba(0,0,0,.6)); }
.pk-feed-action:hover .pk-feed-action-icon { background: var(--pk-feed-action-hover-background, rgba(0,0,0,.78)); }
.pk-feed-action:active .pk-feed-action-icon { transform: scale(.92); }
.pk-feed-action:focus { outline: none; }
.pk-feed-action:focus-visible .pk-feed-action-icon { outline: 3px solid #fff; outline-offset: 2px; box-shadow: 0 0 0 7px rgba(0,0,0,.85); }
@media (prefers-reduced-motion: reduce) { .pk-feed-action-icon { transition: none; } }
@media (forced-colors: active) { .pk-feed-action-icon, .pk-feed-action-label { border: 1px solid ButtonText; } }
.pk-visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
