/**
 * The styles of `<platform-editor>`: its bar, stage, side panel and the
 * overlay a control opens in. The custom properties it reads are listed in
 * platform-editor.ts's module comment.
 */
import { css } from 'lit';

/** The editor's shadow styles. */
export const editorStyles = css`
  :host {
    display: flex;
    flex-direction: column;
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
  .panel .field {
    margin-bottom: 12px;
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
`;
