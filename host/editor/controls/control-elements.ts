/**
 * The editor's control element of every VCC kind: the class bound to the tag
 * its entry in protocol/vcc-kinds.ts names. `satisfies` keeps this in step
 * with the kinds: a kind without a control, or a control of no kind, does not
 * compile. `defineHostElements` (host/elements.ts) registers them all, and
 * `platform-kit/host` exports each class from here.
 */
import type { VccKind } from '../../../protocol/customization.js';
import { ArrayControl } from './array-control.js';
import { BooleanControl } from './boolean-control.js';
import { ColorControl } from './color-control.js';
import type { VccControl } from './control-base.js';
import { JsonControl } from './json-control.js';
import { FileControl, ImageControl, SecretImageControl, SoundControl, VideoControl } from './media-control.js';
import { CoordinateControl, SizeControl } from './number-pair-control.js';
import { ObjectControl } from './object-control.js';
import { RangeControl } from './range-control.js';
import { SecretControl } from './secret-control.js';
import { SelectControl } from './select-control.js';
import { TextControl } from './text-control.js';
import { TextareaControl } from './textarea-control.js';

/** The control element class of each VCC kind. */
export const CONTROL_ELEMENTS = {
  text: TextControl,
  textarea: TextareaControl,
  range: RangeControl,
  boolean: BooleanControl,
  color: ColorControl,
  select: SelectControl,
  image: ImageControl,
  sound: SoundControl,
  video: VideoControl,
  file: FileControl,
  secret: SecretControl,
  'secret-image': SecretImageControl,
  array: ArrayControl,
  object: ObjectControl,
  coordinate: CoordinateControl,
  size: SizeControl,
  unknown: JsonControl,
} as const satisfies { readonly [Kind in VccKind]: new () => VccControl };

export {
  ArrayControl,
  BooleanControl,
  ColorControl,
  CoordinateControl,
  FileControl,
  ImageControl,
  JsonControl,
  ObjectControl,
  RangeControl,
  SecretControl,
  SecretImageControl,
  SelectControl,
  SizeControl,
  SoundControl,
  TextareaControl,
  TextControl,
  VideoControl,
};
