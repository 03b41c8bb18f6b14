/**
 * The styles of `<platform-editor>`: its bar, stage, side panel and the
 * overlay a control opens in; then the compact layout (a phone): the bar at
 * the bottom, the template over the whole body, the panel and the overlay as
 * bottom sheets. The custom properties it reads are listed in
 * platform-editor.ts's module comment.
 */
import { css } from 'lit';

/** The editor's shadow styles. */
export const editorStyles = css`
  /* The element's size: the height of its container (give the page one: html, body { height: 100% }).
     Its layout lives in .editor, so a page rule like platform-editor { display: block } cannot undo it. */
  :host {
    display: block;
    height: 100%;
    min-height: 240px;
    box-sizing: border-box;
    font: var(--platform-control-font, 14px/1.4 system-ui, sans-serif);
    color: var(--platform-editor-fg, #1b1b1f);
    background: var(--platform-editor-bg, #f4f4f6);
  }
  :host([hidden]) {
    display: none;
  }
  .editor {
    display: flex;
    flex-direction: column;
    height: 100%;
    min-height: inherit;
  }
  .bar {
    flex: none;
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 6px;
    padding: 6px 8px;
    background: var(--platform-editor-bar-bg, #fff);
    border-bottom: 1px solid var(--platform-editor-border, #d4d4da);
  }
  .bar button {
    font: inherit;
    padding: 4px 12px;
    border-radius: var(--platform-control-radius, 6px);
    border: 1px solid var(--platform-editor-border, #d4d4da);
    background: transparent;
    color: inherit;
    cursor: pointer;
  }
  .bar button[aria-pressed='true'] {
    background: var(--platform-control-accent, #3b5bdb);
    border-color: var(--platform-control-accent, #3b5bdb);
    color: var(--platform-control-accent-fg, #fff);
  }
  .bar button.finish {
    margin-left: auto;
    background: var(--platform-control-accent, #3b5bdb);
    border-color: var(--platform-control-accent, #3b5bdb);
    color: var(--platform-control-accent-fg, #fff);
  }
  .bar button:disabled {
    opacity: 0.45;
    cursor: default;
  }
  .bar button:focus-visible,
  .overlay button:focus-visible {
    outline: none;
    box-shadow: var(--platform-control-focus-ring, 0 0 0 3px color-mix(in srgb, var(--platform-control-accent, #3b5bdb) 45%, transparent));
  }
  .status {
    color: var(--platform-control-muted, #5c5c66);
    font-size: 0.9em;
    min-width: 0;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .body {
    flex: 1;
    display: flex;
    min-height: 0;
  }
  .stage {
    flex: 1;
    position: relative;
    min-width: 0;
  }
  .stage iframe {
    position: absolute;
    inset: 0;
    width: 100%;
    height: 100%;
    border: 0;
    background: #fff;
  }
  .panel {
    flex: none;
    width: var(--platform-editor-panel-width, 320px);
    overflow: auto;
    padding: 8px 12px;
    box-sizing: border-box;
    border-left: 1px solid var(--platform-editor-border, #d4d4da);
    background: var(--platform-editor-bar-bg, #fff);
  }
  .panel h2 {
    font-size: 1em;
    margin: 12px 0 6px;
  }
  /* A scope's heading is the button that opens and closes it (editor-panel.ts). */
  .panel .scope h2 {
    margin: 4px 0;
  }
  .panel .scope h2 button {
    display: flex;
    align-items: center;
    gap: 6px;
    width: 100%;
    min-height: var(--platform-control-target-size, 32px);
    padding: 4px 2px;
    font: inherit;
    font-weight: 600;
    text-align: start;
    color: inherit;
    background: transparent;
    border: 0;
    border-radius: 6px;
    cursor: pointer;
  }
  .panel .scope h2 button::before {
    content: '';
    flex: none;
    width: 0.45em;
    height: 0.45em;
    margin: 0 0.25em;
    border: solid currentColor;
    border-width: 0 2px 2px 0;
    transform: rotate(-45deg);
    transition: transform 0.12s;
  }
  .panel .scope h2 button[aria-expanded='true']::before {
    transform: rotate(45deg);
  }
  .panel .scope h2 button:focus-visible {
    outline: none;
    box-shadow: var(--platform-control-focus-ring, 0 0 0 3px color-mix(in srgb, var(--platform-control-accent, #3b5bdb) 45%, transparent));
  }
  .panel .scope-body {
    padding-bottom: 4px;
  }
  .panel .field {
    margin-bottom: 12px;
  }
  /* Wraps, however long: the bar's status style (one line, an ellipsis) left long descriptions unreadable on a phone. */
  .panel .scope-description {
    color: var(--platform-control-muted, #5c5c66);
    font-size: 0.9em;
    margin: 0 0 8px;
    overflow-wrap: anywhere;
  }
  .overlay {
    position: fixed;
    inset: auto;
    margin: 0;
    box-sizing: border-box;
    width: max-content;
    min-width: 220px;
    max-width: min(360px, calc(100vw - 16px));
    max-height: calc(100vh - 16px);
    overflow: auto;
    /* Room on the right for the close button beside the control's label. */
    padding: 10px 40px 10px 12px;
    color: inherit;
    background: var(--platform-editor-overlay-bg, #fff);
    border: 1px solid var(--platform-editor-border, #d4d4da);
    border-radius: 8px;
    box-shadow: var(--platform-editor-overlay-shadow, 0 8px 28px rgb(0 0 0 / 0.18));
  }
  .overlay header {
    position: absolute;
    top: 6px;
    right: 6px;
  }
  .overlay header h2 {
    font-size: 0.95em;
    margin: 0;
  }
  .overlay .close {
    font: inherit;
    border: 0;
    background: transparent;
    color: inherit;
    cursor: pointer;
    padding: 2px 6px;
    border-radius: 4px;
  }

  /* The compact layout (layout-controller.ts): the bar last, within thumb reach, clear of the
     home indicator and the rounded corners (safe areas); touch targets of 44 px at least. */
  .bar.compact {
    order: 2;
    gap: 4px;
    padding: 6px max(8px, env(safe-area-inset-right)) max(6px, env(safe-area-inset-bottom)) max(8px, env(safe-area-inset-left));
    border-bottom: 0;
    border-top: 1px solid var(--platform-editor-border, #d4d4da);
  }
  .bar.compact,
  .body.compact {
    /* 16 px: a phone zooms into a focused field whose text is smaller. */
    --platform-control-font: var(--platform-editor-compact-font, 16px/1.4 system-ui, sans-serif);
    font: var(--platform-control-font);
  }
  .bar.compact button {
    min-width: 44px;
    min-height: 44px;
    padding: 0 10px;
  }
  .bar.compact #undo,
  .bar.compact #redo {
    padding: 0;
    font-size: 22px;
  }
  /* One toggle: Preview while remixing, Remix in the preview. */
  .bar.compact #remix[aria-pressed='true'],
  .bar.compact #preview[aria-pressed='true'] {
    display: none;
  }
  .bar.compact .status {
    order: -1;
    flex: 1 0 100%;
  }
  .bar.compact .status:empty {
    display: none;
  }
  .body.compact {
    order: 1;
    position: relative;
    --platform-control-target-size: 44px;
  }
  /* The sheets: the panel behind Customize, the control a tap in the template opens. They rise
     by --_lift, the part of the body the on-screen keyboard covers. */
  .body.compact .sheet {
    position: absolute;
    inset: auto 0 var(--_lift, 0px) 0;
    z-index: 2;
    box-sizing: border-box;
    width: auto;
    min-width: 0;
    max-width: none;
    max-height: min(70%, calc(100% - 56px - var(--_lift, 0px)));
    margin: 0;
    overflow: auto;
    overscroll-behavior: contain;
    padding: 0 max(16px, env(safe-area-inset-right)) 16px max(16px, env(safe-area-inset-left));
    color: inherit;
    background: var(--platform-editor-overlay-bg, #fff);
    border: 0;
    border-top: 1px solid var(--platform-editor-border, #d4d4da);
    border-radius: 14px 14px 0 0;
    box-shadow: var(--platform-editor-sheet-shadow, 0 -6px 24px rgb(0 0 0 / 0.18));
  }
  .body.compact .overlay.sheet {
    z-index: 3;
  }
  .body.compact .panel.sheet:not(.open) {
    display: none;
  }
  .body.compact .sheet:focus {
    outline: none;
  }
  .body.compact .sheet-head {
    position: sticky;
    top: 0;
    z-index: 1;
    display: flex;
    align-items: center;
    min-height: 48px;
    margin: 0 -8px 4px;
    padding-top: 8px;
    background: inherit;
  }
  .body.compact .sheet-head .handle {
    position: absolute;
    top: 6px;
    left: 50%;
    width: 36px;
    height: 4px;
    margin-left: -18px;
    border-radius: 2px;
    background: var(--platform-editor-border, #c4c4cc);
  }
  .body.compact .sheet-head h2 {
    margin: 0 0 0 8px;
    font-size: 1.05em;
  }
  .body.compact .sheet .close {
    margin-left: auto;
    width: 44px;
    height: 44px;
    padding: 0;
    font: inherit;
    font-size: 18px;
    border: 0;
    border-radius: 22px;
    background: transparent;
    color: inherit;
    cursor: pointer;
  }
  .body.compact .sheet .close:focus-visible {
    outline: none;
    box-shadow: var(--platform-control-focus-ring, 0 0 0 3px color-mix(in srgb, var(--platform-control-accent, #3b5bdb) 45%, transparent));
  }
`;
