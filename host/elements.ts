/**
 * Registration of the host's custom elements.
 *
 * Importing `platform-kit/host` defines nothing (the package has no side
 * effects, so bundlers may drop unused modules). Call
 * {@link defineHostElements} once before using `<platform-editor>`,
 * `<platform-feed>` or a control element in HTML.
 */

/** Every custom element of the host: tag name → element class (import each class above and list it here). */
const HOST_ELEMENTS: readonly (readonly [tagName: string, element: CustomElementConstructor])[] = [];

/**
 * Defines every host element in `registry` (default: the page's). Tags that
 * are already defined are left alone, so calling it twice is harmless.
 */
export function defineHostElements(registry: CustomElementRegistry = customElements): void {
  for (const [tagName, element] of HOST_ELEMENTS) {
    if (!registry.get(tagName)) registry.define(tagName, element);
  }
}
