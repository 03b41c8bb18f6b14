/**
 * The focused element, looking inside open shadow roots from `from`
 * (default the document; the editor's shadow root to ask only within it).
 * The overlay and the panel's sheet note it to give the focus back.
 */
export function deepActiveElement(from: DocumentOrShadowRoot = document): HTMLElement | null {
  let active = from.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement ? active : null;
}
