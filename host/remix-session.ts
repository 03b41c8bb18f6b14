/**
 * `RemixSession`: the values and state of one remix, host side.
 *
 * It holds the template's built customization (from the guest, or given),
 * the remix's own values layered over it, the active path, the remix state
 * and editorAttributes. Attach it to a {@link TemplateFrame}: it answers the
 * guest's calls, pushes every change to the guest, and re-sends its state
 * whenever the guest (re)links. The editor UI listens to its events.
 *
 * Keys come from outside (the guest, a draft): values are kept in
 * null-prototype records, and every value passes the checks of
 * remix-value-check.ts first (no scope or key named after a property of
 * Object.prototype; once the template's customization is known, only the
 * paths it declares; each VCC's type). What a guest's describe() returns is
 * checked in built-customization.ts.
 */
import { PREDEFINED_SCOPES, type BuiltCustomization, type VccFieldDefinition, type VccType } from '../protocol/customization.js';
import { assertVccPath, clonePlain, DEFAULT_MAX_VALUE_BYTES, readPath, samePath, type PlainData, type VccPath } from '../protocol/data.js';
import { PlatformError } from '../protocol/errors.js';
import { isControlPosition, isEditorAttributes, type ControlPosition, type EditorAttributes, type HostApi, type ValueOverrides } from '../protocol/link.js';
import { resolveVccPath } from '../protocol/vcc-paths.js';
import { checkBuiltDefaults, parseBuiltCustomization, type DefaultMisfit } from './built-customization.js';
import { Emitter } from './emitter.js';
import { RemixValueCheck, type CheckedValue } from './remix-value-check.js';
import type { TemplateFrame } from './template-frame.js';

export { checkBuiltDefaults, parseBuiltCustomization, type DefaultMisfit } from './built-customization.js';

/** Options of {@link RemixSession}. */
export interface RemixSessionOptions {
  /** The template's built customization; without it the session asks the guest when it links. */
  readonly customization?: BuiltCustomization;
  /** Values this remix starts with (a draft, an existing remix), over the built ones. */
  readonly values?: ValueOverrides;
  /** Default `{ type: 'instant', mode: 'new' }`. */
  readonly editorAttributes?: EditorAttributes;
  /** Whether the session starts in remix mode (true) or preview (false). Default true. */
  readonly remixing?: boolean;
  /** Largest value accepted, in UTF-8 bytes of JSON. Default 256 KiB. */
  readonly maxValueBytes?: number;
}

/** Who changed a value. */
export type ValueSource = 'host' | 'guest';

/** A request to open the control of a path (from the guest's onPresentControl or the host). */
export interface PresentControlEvent {
  /** The path asked for: `[scope, key]` or a path inside that VCC (a nested field, a list item). */
  readonly path: readonly string[];
  /** The path of the value the control edits: `path`, or its start when the control edits a whole value (a coordinate's `x`). */
  readonly controlPath: readonly string[];
  /** Label of the control: the nested field's name, else the VCC's, else the last segment. */
  readonly label: string;
  /** Help text of the nested field or the VCC. */
  readonly description?: string;
  /** The VCC's definition from `@@editor`, when the template has one for this path. */
  readonly field: VccFieldDefinition | undefined;
  /** The parsed type of the VCC (`unknown` kind when undefined or unknown). */
  readonly type: VccType;
  /** Where to open it, in template CSS pixels: the given position, else the last click in the template, else null. */
  readonly position: ControlPosition | null;
  /** True when `position` came from the guest's attributes rather than the last click. */
  readonly explicitPosition: boolean;
}

/** Events of a {@link RemixSession}. */
export interface RemixSessionEvents {
  valuechange: { readonly path: readonly string[]; readonly value: PlainData; readonly source: ValueSource };
  activepathchange: { readonly path: readonly string[] | null };
  remixingchange: { readonly isRemixing: boolean; readonly editorAttributes: EditorAttributes };
  presentcontrol: PresentControlEvent;
  /** The user pressed a pointer inside the template at this position (template CSS pixels). */
  pointer: ControlPosition;
  customization: BuiltCustomization;
  /**
   * The template's defaults that do not fit their VCC types, found when its
   * customization became known (emitted before `customization`, only when
   * there are some): kept as they are, an unsafe URL replaced by `''`.
   */
  defaultmisfits: readonly DefaultMisfit[];
  finish: undefined;
  /** A value from the guest was refused; the last good value stays. */
  refusedvalue: { readonly path: unknown; readonly error: PlatformError };
  error: PlatformError;
}

/** Options of {@link RemixSession.setValue}. */
export interface SetValueOptions {
  /** Who is setting it. Default 'host'. */
  readonly source?: ValueSource;
  /** Frame that must not get the echo (the guest that set it with skipUpdate). */
  readonly skipFrame?: TemplateFrame;
}

/** The guest calls a {@link RemixSession} answers once attached to a frame. */
export const REMIX_CALLS = ['setValue', 'presentControl', 'finish', 'reportPointer'] as const satisfies readonly (keyof HostApi)[];

/** One of {@link REMIX_CALLS}. */
export type RemixCall = (typeof REMIX_CALLS)[number];

/** Options of {@link RemixSession.attach}. */
export interface AttachOptions {
  /**
   * Wraps each handler the session adds to the frame. A host with a door of
   * its own (the feed's rate limits and refusal reports) passes it here, so
   * the session's calls go through it like the host's own.
   */
  readonly wrapHandler?: (name: RemixCall, handler: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown;
}

/** A record without a prototype, for keys that come from outside. */
function nullRecord<Value>(): Record<string, Value> {
  return Object.create(null) as Record<string, Value>;
}

/**
 * A null-prototype copy of `source`, one of this session's own records (null-prototype too, so
 * for…in walks only its own keys). Why not `Object.assign(nullRecord(), source)`: on these
 * dictionary-mode objects it is several times slower, measured (bench/RESULTS.md, 2026-11-25),
 * and a store makes two copies on every keystroke.
 */
function copyRecord<Value>(source: Record<string, Value> | undefined): Record<string, Value> {
  const copy = nullRecord<Value>();
  for (const name in source) copy[name] = source[name] as Value;
  return copy;
}

/** Most console lines about a template's defaults that do not fit (the event carries them all). */
const MAX_MISFIT_LINES = 20;

/** setValue's options for a guest's value without skipUpdate: one object for every keystroke. */
const FROM_GUEST: SetValueOptions = Object.freeze({ source: 'guest' });

/** The values and state of one remix. */
export class RemixSession {
  /** The checks of every value, with the customization they check against (replaced when it is learned). */
  #valueCheck: RemixValueCheck;
  /** This remix's values: null-prototype records at both levels, replaced (never changed) on every store. */
  #overrides: ValueOverrides;
  #editorAttributes: EditorAttributes;
  #remixing: boolean;
  #activePath: VccPath | null = null;
  #lastPointer: ControlPosition | null = null;
  #defaultMisfits: readonly DefaultMisfit[] = [];
  readonly #maxValueBytes: number;
  readonly #frames = new Set<TemplateFrame>();
  readonly #events = new Emitter<RemixSessionEvents>();

  constructor(options: RemixSessionOptions = {}) {
    this.#maxValueBytes = options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
    this.#valueCheck = new RemixValueCheck(options.customization ? this.#checkDefaults(options.customization) : null, this.#maxValueBytes);
    this.#overrides = nullRecord();
    this.#editorAttributes = options.editorAttributes ?? { type: 'instant', mode: 'new' };
    if (!isEditorAttributes(this.#editorAttributes)) throw new PlatformError('INVALID_ARGUMENT', 'editorAttributes must be {type: full|instant, mode: new|edit}');
    this.#remixing = options.remixing ?? true;
    for (const [scope, entries] of Object.entries(options.values ?? {})) {
      for (const [key, value] of Object.entries(entries)) this.#store(this.#check([scope, key], value, 'host'));
    }
  }

  /** Adds an event listener; returns its remover. */
  on<Name extends keyof RemixSessionEvents & string>(name: Name, listener: (payload: RemixSessionEvents[Name]) => void): () => void {
    return this.#events.on(name, listener);
  }

  /** The template's built customization, once known. */
  get customization(): BuiltCustomization | null {
    return this.#customization;
  }

  get #customization(): BuiltCustomization | null {
    return this.#valueCheck.customization;
  }

  /** The template's defaults that do not fit their VCC types (see the `defaultmisfits` event); empty until the customization is known. */
  get defaultMisfits(): readonly DefaultMisfit[] {
    return this.#defaultMisfits;
  }

  /** The values set in this remix (what a draft or a published remix stores). */
  get overrides(): ValueOverrides {
    return this.#overrides;
  }

  /** Every value: the built ones with this remix's over them. */
  get values(): ValueOverrides {
    const merged = nullRecord<Record<string, PlainData>>();
    for (const [scope, entries] of Object.entries(this.#customization?.values ?? {})) merged[scope] = Object.assign(nullRecord<PlainData>(), entries);
    for (const [scope, entries] of Object.entries(this.#overrides)) merged[scope] = Object.assign(nullRecord<PlainData>(), merged[scope], entries);
    return merged;
  }

  /** The value at `path` (this remix's, else the built one); undefined when missing. */
  get(path: readonly string[]): PlainData | undefined {
    const [scope, key, ...rest] = assertVccPath(path);
    if (scope === undefined || key === undefined) return clonePlain(readPath(this.values, [scope ?? '']) as PlainData | undefined);
    const own = readPath(this.#overrides, [scope, key]);
    const value = own !== undefined ? own : readPath(this.#customization?.values, [scope, key]);
    return clonePlain((rest.length === 0 ? value : readPath(value, rest)) as PlainData | undefined);
  }

  /** The parsed VCC type at `path`, when the template defines one. */
  typeAt(path: readonly string[]): VccType | undefined {
    return this.#valueCheck.fieldAt(path[0] ?? '', path[1] ?? '')?.type;
  }

  /** Whether the session is in remix mode (false: preview). */
  get remixing(): boolean {
    return this.#remixing;
  }

  /** The editor's attributes, as the guest's onSetRemixing receives them. */
  get editorAttributes(): EditorAttributes {
    return this.#editorAttributes;
  }

  /** The path of the open control, or null. */
  get activePath(): readonly string[] | null {
    return this.#activePath;
  }

  /** Where the user last clicked inside the template (template CSS pixels), or null. */
  get lastPointer(): ControlPosition | null {
    return this.#lastPointer;
  }

  /**
   * Sets the value at `[scope, key]` (or deeper: a field of an object VCC,
   * an item of a list by its index). Everyone is then told `[scope, key]`
   * and its whole new value, also after a deep set. Throws `INVALID_PATH` (a
   * malformed path, a scope or key named after a property of
   * Object.prototype, a path the template's customization does not declare
   * once it is known, a nested field its VCC does not have, an item past
   * the list's end, a predefined scope from the guest), `INVALID_VALUE`
   * (not plain data, or the wrong type for its VCC) or `VALUE_TOO_LARGE`;
   * then nothing changes, nobody is told and the last good value stays.
   */
  setValue(path: readonly string[], value: unknown, options: SetValueOptions = {}): void {
    const checkedPath = assertVccPath(path);
    const source = options.source ?? 'host';
    const checked = this.#check(checkedPath, value, source);
    // Frames first: the template's onValueChanged is the latency that matters. The value is
    // stored and the editor's own listeners hear it after the notification left; nothing in
    // between reads the session's values (a notification is posted or queued, never answered
    // at once).
    // After a deep set the templates hear `[scope, key]` and its whole value, as the original
    // platform's emitChange did (`resolvedConfig[path[0]][path[1]] = newValue`).
    const entryPath = checkedPath.length === 2 ? checkedPath : [checked.scope, checked.key];
    for (const frame of this.#frames) {
      if (frame === options.skipFrame) continue;
      frame.notify('valueChanged', entryPath, checked.entry).catch(this.#report);
    }
    this.#store(checked);
    // The event's copies are made only for someone to hear them.
    if (this.#events.has('valuechange')) this.#events.emit('valuechange', { path: [...entryPath], value: clonePlain(checked.entry), source });
  }

  /** Enters or leaves remix mode; the guest's onSetRemixing hears it. */
  setRemixing(isRemixing: boolean, editorAttributes: EditorAttributes = this.#editorAttributes): void {
    if (!isEditorAttributes(editorAttributes)) throw new PlatformError('INVALID_ARGUMENT', 'editorAttributes must be {type: full|instant, mode: new|edit}');
    this.#remixing = isRemixing;
    this.#editorAttributes = { type: editorAttributes.type, mode: editorAttributes.mode };
    this.#events.emit('remixingchange', { isRemixing, editorAttributes: this.#editorAttributes });
    for (const frame of this.#frames) this.#notify(frame, 'remixingChanged', isRemixing, this.#editorAttributes);
  }

  /** Sets the open control's path (null: none open); the guest's onSetActivePath hears it. */
  setActivePath(path: readonly string[] | null): void {
    const checked = path === null ? null : assertVccPath(path);
    if (samePath(checked, this.#activePath)) return;
    this.#activePath = checked === null ? null : [...checked];
    this.#events.emit('activepathchange', { path: this.#activePath });
    for (const frame of this.#frames) this.#notify(frame, 'activePathChanged', this.#activePath);
  }

  /**
   * Asks the UI to open the control of `path` (what the guest's
   * onPresentControl does): `[scope, key]`, or a path inside it, which opens
   * that nested field's control. Once the customization is known, a path it
   * does not declare throws `INVALID_PATH` and nothing opens.
   */
  presentControl(path: readonly string[], position?: ControlPosition): void {
    const checked = assertVccPath(path);
    const explicit = position !== undefined;
    const [scope, key] = checked;
    const customization = this.#customization;
    const where = { path: [...checked], position: position ?? this.#lastPointer, explicitPosition: explicit };
    const resolved = customization ? resolveVccPath(customization, checked) : undefined;
    if (resolved) {
      const { field, type, label, description, depth } = resolved;
      this.#events.emit('presentcontrol', { ...where, controlPath: checked.slice(0, depth), field, type, label, ...(description !== undefined ? { description } : {}) });
      return;
    }
    if (scope === undefined || key === undefined) throw new PlatformError('INVALID_PATH', 'a control opens for a [scope, key] path or a path inside it');
    // A key with a built value and no definition gets the raw JSON box; anything else is not the template's.
    if (customization && (checked.length > 2 || PREDEFINED_SCOPES.has(scope) || !this.#valueCheck.declares(scope, key))) {
      throw new PlatformError('INVALID_PATH', `${JSON.stringify(checked)} is not declared by the template's customization: no control opens for it`);
    }
    this.#events.emit('presentcontrol', { ...where, controlPath: [scope, key], field: undefined, type: { kind: 'unknown', name: 'json' }, label: key });
  }

  /** Moves the remix to the preview (remixing false) and emits 'finish'. */
  finish(): void {
    this.setActivePath(null);
    if (this.#remixing) this.setRemixing(false);
    this.#events.emit('finish', undefined);
  }

  /**
   * Links the session to a frame: answers its remix calls (setValue,
   * presentControl, finish, reportPointer) and keeps it in sync. The
   * handlers are added as a layer over the frame's own (see
   * TemplateFrame.addHandlers): the frame's other handlers keep working.
   * Returns the function that detaches it.
   */
  attach(frame: TemplateFrame, options: AttachOptions = {}): () => void {
    this.#frames.add(frame);
    const handlers: { [Name in RemixCall]: (...args: unknown[]) => unknown } = {
      setValue: (path, value, skipUpdate) => this.#setFromGuest(frame, path, value, skipUpdate),
      presentControl: (path, attributes) => {
        const position = typeof attributes === 'object' && attributes !== null ? (attributes as { position?: unknown }).position : undefined;
        if (position !== undefined && !isControlPosition(position)) throw new PlatformError('INVALID_ARGUMENT', 'position must be {x, y}');
        try {
          this.presentControl(assertVccPath(path), position);
        } catch (error) {
          // The template hears the refusal (its call rejects) and so does the editor.
          if (error instanceof PlatformError) this.#events.emit('error', error);
          throw error;
        }
      },
      finish: () => this.finish(),
      reportPointer: (position) => {
        if (!isControlPosition(position)) throw new PlatformError('INVALID_ARGUMENT', 'a pointer position must be {x, y}');
        this.#lastPointer = { x: position.x, y: position.y };
        // The editor closes an open control when the user clicks elsewhere, also inside the template.
        this.#events.emit('pointer', this.#lastPointer);
      },
    };
    const wrap = options.wrapHandler;
    if (wrap) for (const name of REMIX_CALLS) handlers[name] = wrap(name, handlers[name]);
    const removeHandlers = frame.addHandlers(handlers);
    const sendState = (): void => {
      // Sent at once, before the guest's ready(): get() must see the remix's values even before listeners exist.
      frame.request('sync', { values: this.#overrides }).catch((error: unknown) => this.#report(error));
      this.#notify(frame, 'remixingChanged', this.#remixing, this.#editorAttributes);
      if (this.#activePath) this.#notify(frame, 'activePathChanged', this.#activePath);
      if (!this.#customization) this.#learnCustomization(frame);
    };
    const removeLinkListener = frame.on('link', sendState);
    if (frame.state === 'linked' || frame.state === 'ready') sendState();
    return () => {
      removeLinkListener();
      removeHandlers();
      this.#frames.delete(frame);
    };
  }

  #learnCustomization(frame: TemplateFrame): void {
    frame
      .request('describe')
      .then((described) => {
        if (this.#customization) return;
        const customization = this.#checkDefaults(parseBuiltCustomization(described));
        this.#valueCheck = new RemixValueCheck(customization, this.#maxValueBytes);
        if (this.#defaultMisfits.length > 0) this.#events.emit('defaultmisfits', this.#defaultMisfits);
        this.#events.emit('customization', customization);
      })
      .catch((error: unknown) => this.#report(error));
  }

  /** The customization with its defaults checked (see checkBuiltDefaults); remembers what did not fit and says it once. */
  #checkDefaults(customization: BuiltCustomization): BuiltCustomization {
    const checked = checkBuiltDefaults(customization);
    this.#defaultMisfits = checked.misfits;
    // One line per misfit, a bounded number of them: the template's author sees them in the host's console too.
    for (const misfit of checked.misfits.slice(0, MAX_MISFIT_LINES)) console.warn(misfit.error.message);
    if (checked.misfits.length > MAX_MISFIT_LINES) console.warn(`platform-kit: and ${checked.misfits.length - MAX_MISFIT_LINES} more defaults that do not fit their types`);
    return checked.customization;
  }

  #setFromGuest(frame: TemplateFrame, path: unknown, value: unknown, skipUpdate: unknown): void {
    try {
      this.setValue(path as readonly string[], value, skipUpdate === true ? { source: 'guest', skipFrame: frame } : FROM_GUEST);
    } catch (error) {
      const coded = error instanceof PlatformError ? error : new PlatformError('INVALID_VALUE', String(error));
      this.#events.emit('refusedvalue', { path, error: coded });
      throw coded;
    }
  }

  /** Checks one value; changes nothing (see {@link RemixSession.#store}). Throws what setValue throws. */
  #check(path: VccPath, value: unknown, source: ValueSource): CheckedValue {
    return this.#valueCheck.check(path, value, source, this.#stored);
  }

  /** The entry now at `[scope, key]`, for {@link RemixSession.#check}; bound once, not a closure per value. */
  readonly #stored = (scope: string, key: string): PlainData | undefined => this.get([scope, key]);

  /** Stores a value that {@link RemixSession.#check} passed. */
  #store(checked: CheckedValue): void {
    const { scope, key, entry } = checked;
    // New records (a reader's `overrides` stays as it was), without prototypes: keys come from outside.
    const overrides = copyRecord(this.#overrides);
    const entries = copyRecord(this.#overrides[scope]);
    entries[key] = entry;
    overrides[scope] = entries;
    this.#overrides = overrides;
  }

  #notify(frame: TemplateFrame, name: 'valueChanged' | 'activePathChanged' | 'remixingChanged', ...args: unknown[]): void {
    (frame.notify as (name: string, ...rest: unknown[]) => Promise<void>)(name, ...args).catch(this.#report);
  }

  /** Reports a failed notification or request (bound once: it is passed on every notification). */
  readonly #report = (error: unknown): void => {
    // A reload drops what was in flight on purpose; the state is re-sent on 'link'.
    if (error instanceof PlatformError && (error.code === 'LINK_RESET' || error.code === 'LINK_CLOSED')) return;
    this.#events.emit('error', error instanceof PlatformError ? error : new PlatformError('INTERNAL', String(error)));
  };
}
