/* eslint-disable @typescript-eslint/switch-exhaustiveness-check -- the switches below leave members out on purpose: the compiler must refuse them */
// Type tests of the kind tables and the exhaustive switches (checked by `npm run test:types`,
// never run). Each @ts-expect-error must stay an error: if a table or a switch stops being
// checked by the compiler, tsc fails here ("Unused '@ts-expect-error' directive").
import { CONTROL_ELEMENTS } from '../../host/editor/controls/control-elements.js';
import type { VccControl } from '../../host/editor/controls/control-base.js';
import { listingEvery, unreachable } from '../../protocol/exhaustive.js';
import type { GuestApi } from '../../protocol/link.js';
import type { ClientMessage, ServerMessage } from '../../protocol/signaling.js';
import { VCC_KINDS, type KindSpec, type VccKind, type VccKindTable, type VccType } from '../../protocol/vcc-kinds.js';
import type { ShardBroadcast } from '../../signaling/store/store.js';

// The table as it is compiles.
export const table: VccKindTable = VCC_KINDS;

// A kind without its entry does not compile.
const { text: _text, ...withoutText } = VCC_KINDS;
// @ts-expect-error: property 'text' is missing
export const missingKind: VccKindTable = withoutText;

// An entry that leaves out any one of its parts does not compile: each part in turn.
const { check: _check, ...textWithoutCheck } = VCC_KINDS.text;
// @ts-expect-error: property 'check' is missing
export const noCheck: KindSpec<'text'> = textWithoutCheck;
const { defaultValue: _defaultValue, ...textWithoutDefault } = VCC_KINDS.text;
// @ts-expect-error: property 'defaultValue' is missing
export const noDefault: KindSpec<'text'> = textWithoutDefault;
const { parse: _parse, ...textWithoutParse } = VCC_KINDS.text;
// @ts-expect-error: property 'parse' is missing
export const noParse: KindSpec<'text'> = textWithoutParse;
const { typeScript: _typeScript, ...textWithoutTypeScript } = VCC_KINDS.text;
// @ts-expect-error: property 'typeScript' is missing
export const noTypeScript: KindSpec<'text'> = textWithoutTypeScript;
const { control: _control, ...textWithoutControl } = VCC_KINDS.text;
// @ts-expect-error: property 'control' is missing
export const noControl: KindSpec<'text'> = textWithoutControl;
const { typeName: _typeName, ...textWithoutTypeName } = VCC_KINDS.text;
// @ts-expect-error: property 'typeName' is missing
export const noTypeName: KindSpec<'text'> = textWithoutTypeName;
const { members: _members, ...textWithoutMembers } = VCC_KINDS.text;
// @ts-expect-error: property 'members' is missing
export const noMembers: KindSpec<'text'> = textWithoutMembers;
const { loadsUrl: _loadsUrl, ...textWithoutLoadsUrl } = VCC_KINDS.text;
// @ts-expect-error: property 'loadsUrl' is missing
export const noLoadsUrl: KindSpec<'text'> = textWithoutLoadsUrl;

// A parse that makes another kind's type, or a kind's entry filed under another kind, does not compile.
// @ts-expect-error: { kind: 'textarea' } is not a text type
export const wrongParse: KindSpec<'text'> = { ...VCC_KINDS.text, parse: () => ({ kind: 'textarea' }) };
// @ts-expect-error: the range entry's functions take a range type
export const misfiled: VccKindTable = { ...VCC_KINDS, text: VCC_KINDS.range };
// @ts-expect-error: an entry for a kind that does not exist
export const extraKind: VccKindTable = { ...VCC_KINDS, date: VCC_KINDS.text } satisfies VccKindTable;

// Every kind has its control element, and only those.
export const controls: { readonly [Kind in VccKind]: new () => VccControl } = CONTROL_ELEMENTS;
const { text: _textControl, ...controlsWithoutText } = CONTROL_ELEMENTS;
// @ts-expect-error: property 'text' is missing
export const missingControl: { readonly [Kind in VccKind]: new () => VccControl } = controlsWithoutText;

// A switch that leaves out a member of its union does not compile at its `unreachable`.
export function kindSwitch(type: VccType): string {
  switch (type.kind) {
    case 'array':
    case 'object':
      return 'container';
    default:
      // @ts-expect-error: every other kind reaches here
      return unreachable(type, 'kind');
  }
}
export function clientFrameSwitch(message: ClientMessage): string {
  switch (message.type) {
    case 'join':
    case 'identify':
    case 'userInfo':
    case 'emit':
    case 'info':
    case 'ping':
      return message.type;
    default:
      // @ts-expect-error: 'leave' has no case
      return unreachable(message, 'client frame');
  }
}
export function serverFrameSwitch(message: ServerMessage): string {
  switch (message.type) {
    case 'joined':
    case 'ok':
    case 'error':
    case 'event':
    case 'presence':
    case 'info':
      return message.type;
    default:
      // @ts-expect-error: 'pong' has no case
      return unreachable(message, 'server frame');
  }
}
export function shardMessageSwitch(message: ShardBroadcast): string {
  switch (message.kind) {
    case 'event':
    case 'presence':
    case 'peer':
      return message.kind;
    default:
      // @ts-expect-error: 'takeover' has no case
      return unreachable(message, 'shard message');
  }
}

// An allow-list that must name every method: one left out does not compile.
export const allGuestMethods = listingEvery<keyof GuestApi>()([
  'describe',
  'sync',
  'valueChanged',
  'activePathChanged',
  'remixingChanged',
  'playbackStateChanged',
  'insetsChanged',
]);
// @ts-expect-error: missing 'insetsChanged'
export const someGuestMethods = listingEvery<keyof GuestApi>()(['describe', 'sync', 'valueChanged', 'activePathChanged', 'remixingChanged', 'playbackStateChanged']);
