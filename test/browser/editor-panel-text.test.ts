// The panel's scope descriptions wrap: they once had the bar's status style (one line, an
// ellipsis), and on a phone a long one was cut with no way to read the rest.
import { expect } from '@esm-bundle/chai';
import { html, render } from 'lit';
import { renderPanel } from '../../host/editor/editor-panel.js';
import { editorStyles } from '../../host/editor/editor-styles.js';
import type { BuiltCustomization } from '../../protocol/customization.js';

describe('editor panel: scope descriptions', () => {
  it('a long description wraps inside a narrow panel, whole', () => {
    const description = 'Everything the card says when it opens, what it shows behind the words, and the sound it plays for the person who gets it';
    const customization = { editor: [{ key: 'card', name: 'Greeting card', description, fields: [] }] } as unknown as BuiltCustomization;
    const host = document.createElement('div');
    host.style.width = '220px';
    document.body.append(host);
    const root = host.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [editorStyles.styleSheet!];
    try {
      render(
        html`${renderPanel({
          customization,
          remixing: true,
          renderField: () => html``,
          focus: { in: () => undefined, out: () => undefined },
          // The scope open (panel-scopes.ts): a closed one draws no description at all.
          scopes: { isOpen: () => true, shown: (_key: string, count: number) => count, toggle: () => undefined },
          loadError: null,
          sheet: null,
        })}`,
        root,
      );
      const text = root.querySelector<HTMLElement>('.scope-description')!;
      expect(text.textContent).to.equal(description);
      expect(text.scrollWidth).to.be.at.most(text.clientWidth, 'nothing cut on the side');
      expect(text.getBoundingClientRect().height).to.be.above(40, 'several lines');
    } finally {
      host.remove();
    }
  });
});
