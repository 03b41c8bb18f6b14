/**
 * Registration of the host's custom elements.
 *
 * Importing `platform-kit/host` defines nothing (the package has no side
 * effects, so bundlers may drop unused modules). Call
 * {@link defineHostElements} once before using `<platform-editor>`,
 * `<platform-feed>` or a control element in HTML.
 */

import { ArrayControl } from './editor/controls/array-control.js';
import { BooleanControl } from './editor/controls/boolean-control.js';
import { ColorControl } from './editor/controls/color-control.js';
import { JsonControl } from './editor/controls/json-control.js';
import { FileControl, ImageControl, SecretImageControl, SoundControl, VideoControl } from './editor/controls/media-control.js';
import { CoordinateControl, SizeControl } from './editor/controls/number-pair-control.js';
import { ObjectControl } from './editor/controls/object-control.js';
import { RangeControl } from './editor/controls/range-control.js';
import { CONTROL_TAGS } from './editor/controls/render-control.js';
import { SecretControl } from './editor/controls/secret-control.js';
import { SelectControl } from './editor/controls/select-control.js';
import { TextControl } from './editor/controls/text-control.js';
import { TextareaControl } from './editor/controls/textarea-control.js';
import { PlatformEditor } from './editor/platform-editor.js';
import { PlatformFeed } from './feed/platform-feed.js';

/** Every custom element of the host: tag name → element class (import each class above and list it here). */
const HOST_ELEMENTS: readonly (readonly [tagName: string, element: CustomElementConstructor])[] = [
  // The editor and one control per VCC type (editor issue).
  ['platform-editor', PlatformEditor],
  [CONTROL_TAGS.text, TextControl],
  [CONTROL_TAGS.textarea, TextareaControl],
  [CONTROL_TAGS.range, RangeControl],
  [CONTROL_TAGS.boolean, BooleanControl],
  [CONTROL_TAGS.color, ColorControl],
  [CONTROL_TAGS.select, SelectControl],
  [CONTROL_TAGS.image, ImageControl],
  [CONTROL_TAGS.sound, SoundControl],
  [CONTROL_TAGS.video, VideoControl],
  [CONTROL_TAGS.file, FileControl],
  [CONTROL_TAGS.secret, SecretControl],
  [CONTROL_TAGS['secret-image'], SecretImageControl],
  [CONTROL_TAGS.coordinate, CoordinateControl],
  [CONTROL_TAGS.size, SizeControl],
  [CONTROL_TAGS.array, ArrayControl],
  [CONTROL_TAGS.object, ObjectControl],
  [CONTROL_TAGS.unknown, JsonControl],
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
