/**
 * Registration of the host's custom elements.
 *
 * Importing `platform-kit/host` defines nothing (the package has no side
 * effects, so bundlers may drop unused modules). Call
 * {@link defineHostElements} once before using `<platform-editor>`,
 * `<platform-feed>` or a control element in HTML.
 */

import type { VccKind } from '../protocol/customization.js';
import { CONTROL_ELEMENTS } from './editor/controls/control-elements.js';
import { CONTROL_TAGS } from './editor/controls/render-control.js';
import { PlatformEditor } from './editor/platform-editor.js';
import { PlatformFeed } from './feed/platform-feed.js';

/** Every custom element of the host: tag name → element class. */
const HOST_ELEMENTS: readonly (readonly [tagName: string, element: CustomElementConstructor])[] = [
  // The editor and one control per VCC kind (its tag and class: protocol/vcc-kinds.ts, controls/control-elements.ts).
  ['platform-editor', PlatformEditor],
  ...(Object.keys(CONTROL_ELEMENTS) as VccKind[]).map((kind) => [CONTROL_TAGS[kind], CONTROL_ELEMENTS[kind]] as const),
  // The feed (feed issue).
  ['platform-feed', PlatformFeed],
];

/**
 * Defines every host element in `registry` (default: the page's). Tags that
 * are already defined are left alone, so calling it twice is harmless.
 */
export function defineHostElements(registry: CustomElementRegistry = customElements): void {
  for (const [tagName, element] of HOST_ELEMENTS) {
    if (!registry.get(tagName)) registry.define(tagName, element);
  }
}
