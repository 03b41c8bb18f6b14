/**
 * What a feed template hears of remixing: it is shown as a preview, never
 * being remixed. An item with values gets a RemixSession (not remixing),
 * which sends them and `remixingChanged(false)` at every (re)link; every
 * other frame (a plain item, a page an item navigated to, the sheet's)
 * hears `remixingChanged(false)` alone. Why every one: a template may start
 * in its remix view and leave it, and call load(), only when told it is not
 * remixing (its onSetRemixing's first call after ready()). Apart from the
 * door because these are notifications to the guest, not answers to it.
 */
import type { EditorAttributes, ValueOverrides } from '../../protocol/link.js';
import { RemixSession, type RemixCall } from '../remix-session.js';
import type { TemplateFrame } from '../template-frame.js';
import { reportQuietly } from './guest-door.js';

/** What a preview says of its editor: RemixSession's default. */
const PREVIEW_EDITOR: EditorAttributes = { type: 'instant', mode: 'new' };

/** Wraps a session's handler so it goes through the feed's door (GuestDoor.guarded). */
export type WrapRemixHandler = (name: RemixCall, handler: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown;

/** Attaches what `frame` hears of remixing: its item's `values` in a session, or only that it is not remixing. Returns what releases it. */
export function attachPreview(frame: TemplateFrame, values: ValueOverrides | undefined, wrap: WrapRemixHandler): (() => void)[] {
  return values ? attachValues(frame, values, wrap) : attachNotRemixing(frame);
}

/**
 * Gives the item's template its values as a remix preview does: a
 * RemixSession (not remixing) attached to the frame re-sends them at every
 * (re)link, before the guest's ready(). Its handlers (setValue,
 * presentControl, finish, reportPointer) go through `wrap`.
 * Returns what releases it.
 */
export function attachValues(frame: TemplateFrame, values: ValueOverrides, wrap: WrapRemixHandler): (() => void)[] {
  const session = new RemixSession({ values, remixing: false });
  const detach = session.attach(frame, { wrapHandler: wrap });
  // A template without InstantRemixing cannot describe itself: nothing for the feed's user to see.
  const stopErrors = session.on('error', (error) => reportQuietly(error));
  return [detach, stopErrors];
}

/**
 * Tells a frame without values that it is not remixing, at every (re)link:
 * queued by the frame until the guest's ready() (a template without
 * InstantRemixing never opens that gate, and the queue goes with the frame).
 * Returns what releases it.
 */
export function attachNotRemixing(frame: TemplateFrame): (() => void)[] {
  const tell = (): void => void frame.notify('remixingChanged', false, PREVIEW_EDITOR).catch((error: unknown) => reportQuietly(error));
  const stop = frame.on('link', tell);
  if (frame.state === 'linked' || frame.state === 'ready') tell();
  return [stop];
}
