/**
 * `InstantRemixing`: what a template uses to read its custom values and to
 * take part in an instant remix (spec: customization.md, InstantRemixing).
 */
import { assertPlainData, clonePlain, readPath, templatePath, type PlainData } from '../protocol/data.js';
import { PlatformError } from '../protocol/errors.js';
import { isControlPosition, type EditorAttributes, type PresentControlAttributes, type ValueOverrides } from '../protocol/link.js';
import { addListener, callFailed, settleCall, type CallErrorHandler } from './call-failures.js';
import { getGuestLink } from './link.js';
import { flightKey, GuestRemixState, type ActivePathHandler, type Listeners, type RemixingHandler, type ValueChangedHandler } from './remix-state.js';
import type { VccValueAt, VccValuePath } from './types.js';

export type { ActivePathHandler, RemixingHandler, ValueChangedHandler } from './remix-state.js';

let sharedState: GuestRemixState | null = null;
let warnedCurrentState = false;

/**
 * Instant remixing for a template. Create it, set every listener, then call
 * {@link InstantRemixing.ready}. Works standalone too: outside a host, get()
 * returns the built values and no listener fires.
 *
 * Every `on…` listener method returns a function that removes the listener
 * (beyond the spec, which states no result).
 */
export class InstantRemixing {
  readonly #state: GuestRemixState;
  readonly #listeners: Listeners = { value: new Set(), activePath: new Set(), remixing: new Set(), error: new Set() };

  constructor() {
    sharedState ??= new GuestRemixState(getGuestLink());
    this.#state = sharedState;
    this.#state.instances.add(this.#listeners);
  }

  /**
   * Reads the value at `path`: the host's value during a remix, else the
   * built value from the customization files. Predefined paths:
   * `['metadata', 'projectId']` and `['serviceMap', name]`. `[scope]` alone
   * gives the whole scope. A number in the path indexes a list
   * (`['messages', 'items', 0, 'text']`) and undefined segments at its end
   * are ignored. A missing path gives undefined; a malformed one throws
   * `INVALID_PATH`.
   */
  get<const Path extends VccValuePath>(path: Path): VccValueAt<Path> {
    const checked = templatePath(path);
    return clonePlain(this.#state.readForTemplate(checked) as PlainData);
  }

  /**
   * Listens to changes of custom values. The handler receives `[scope, key]`
   * and the whole value there, also after a deep onSetValue (a field inside
   * an object VCC, a list item): as the original platform did.
   */
  onValueChanged(handler: ValueChangedHandler): () => void {
    return addListener(this.#listeners.value, handler);
  }

  /**
   * Sets the value at `path`: `[scope, key]`, or a path inside it (a field of
   * an object VCC, a list item by its index: numbers index lists, as in get())
   * that the customization declares; the host refuses other paths with
   * `INVALID_PATH`. The template sees it at once through get(); the host then
   * echoes it to onValueChanged unless `skipUpdate` is true (for text inputs
   * that already show what was typed). Throws at once for a malformed path or
   * a value that is not plain data. When the host refuses the value the last
   * good one is restored and the failure goes to {@link InstantRemixing.onError}
   * (the promise rejects too, already handled); where no editor takes values
   * (a plain feed item) it resolves and does nothing.
   */
  onSetValue(path: readonly (string | number)[], newValue: unknown, skipUpdate = false): Promise<void> {
    const checkedPath = templatePath(path);
    const value = assertPlainData(newValue);
    const state = this.#state;
    // A malformed argument throws at once; a path that does not fit the current value (a list
    // index past its end) is a refusal like the host's, told through onError and the promise.
    if (checkedPath.length === 1 && !isPlainObject(value)) throw new PlatformError('INVALID_VALUE', 'the value of a whole scope must be an object');
    // Only a path deeper than [scope, key] can fail to fit (a list index past its end): its new
    // overrides are made before anything is sent; the others' after, off the round trip's path.
    let next: ValueOverrides | null = null;
    if (checkedPath.length > 2) {
      try {
        next = state.withOverride(checkedPath, clonePlain(value));
      } catch (error) {
        return this.#settle('onSetValue', Promise.reject(error));
      }
    }
    // The request leaves first, so the host works on it while this side does its bookkeeping.
    // Nothing can answer before onSetValue returns, and get() sees the new value as soon as it has.
    // skipUpdate travels only when true: one argument less on the wire of every keystroke.
    const sent = skipUpdate ? state.link.call('setValue', checkedPath, value, true) : state.link.call('setValue', checkedPath, value);
    next ??= state.withOverride(checkedPath, clonePlain(value));
    const scope = checkedPath[0] ?? '';
    const key = checkedPath[1] ?? '';
    const entryKey = flightKey(scope, key);
    let flight = state.inFlight.get(entryKey);
    if (!flight) state.inFlight.set(entryKey, (flight = { calls: 0, echoes: 0, latest: 0, lastGood: readPath(state.overrides, [scope, key]) }));
    const call = ++flight.latest;
    const echoed = !skipUpdate;
    flight.calls++;
    if (echoed) flight.echoes++;
    const entry = readPath(next, [scope, key]);
    state.overrides = next;
    const landed = (): void => {
      flight.calls--;
      if (echoed) flight.echoes--;
      if (flight.calls === 0 && state.inFlight.get(entryKey) === flight) state.inFlight.delete(entryKey);
    };
    // One reaction to the answer: the bookkeeping and the settling of a failure (callFailed) in
    // it. A then, a finally and settleCall's then and catch were nine promises and four
    // microtask hops on every keystroke (measured, bench/RESULTS.md 2026-11-25).
    const settled: Promise<void> = sent.then(
      () => {
        flight.lastGood = entry;
        landed();
      },
      (error: unknown) => {
        landed();
        // The host refused the latest value: the last one it accepted comes back. A timeout or
        // reset proves nothing about the value, and an older call's refusal nothing about a newer one.
        const refused = error instanceof PlatformError && error.code !== 'CALL_TIMEOUT' && error.code !== 'LINK_RESET';
        if (refused && call === flight.latest && checkedPath.length > 1) state.restore(scope, key, flight.lastGood);
        callFailed('onSetValue', error, this.#allErrorListeners, settled);
      },
    );
    return settled;
  }

  /**
   * Opens the control of the value at `path` in the editor, at
   * `attributes.position` (template CSS pixels) or where the user last
   * clicked. A deep path opens that nested field's control. Outside the
   * editor it resolves and does nothing; a refusal goes to onError.
   */
  onPresentControl(path: readonly (string | number)[], attributes?: { position?: { x: number; y: number } }): Promise<void> {
    const checkedPath = templatePath(path);
    const checkedAttributes: PresentControlAttributes = {};
    if (attributes?.position !== undefined) {
      if (!isControlPosition(attributes.position)) throw new PlatformError('INVALID_ARGUMENT', 'position must be {x, y} with finite numbers');
      Object.assign(checkedAttributes, { position: { x: attributes.position.x, y: attributes.position.y } });
    }
    return this.#settle('onPresentControl', this.#state.link.call('presentControl', checkedPath, checkedAttributes));
  }

  /** Listens to the active control (null when none is open), e.g. to highlight it. */
  onSetActivePath(handler: ActivePathHandler): () => void {
    return addListener(this.#listeners.activePath, handler);
  }

  /** Listens to remix state changes. The first call after ready() tells the current state. */
  onSetRemixing(handler: RemixingHandler): () => void {
    return addListener(this.#listeners.remixing, handler);
  }

  /** No longer supported (spec): warns once and does nothing. */
  onSetCurrentState(_handler?: unknown): void {
    if (warnedCurrentState) return;
    warnedCurrentState = true;
    console.warn('platform-kit: InstantRemixing.onSetCurrentState is no longer supported and has no effect');
  }

  /** Advances the remix to the preview. Outside the editor it resolves and does nothing. */
  finish(): Promise<void> {
    return this.#settle('finish', this.#state.link.call('finish'));
  }

  /**
   * Signals that the listeners are set: the host now delivers its queued
   * notifications, in order. A value that get() read before the host's values
   * arrived (at start-up, as templates of the original platform do) and that
   * the host's values change is told to onValueChanged then, as `[scope, key]`
   * and its value.
   */
  ready(): Promise<void> {
    this.#state.markReady();
    return this.#settle('ready', this.#state.link.call('ready'));
  }

  /**
   * Listens to failures of the calls whose promise a template may ignore
   * (onSetValue, onPresentControl, finish, ready): the host refused, the call
   * timed out, the link was reset. Beyond the spec. Without any listener a
   * failure is one console warning, never an unhandled rejection.
   */
  onError(handler: CallErrorHandler): () => void {
    return addListener(this.#listeners.error, handler);
  }

  /** Whether the template is being remixed, as onSetRemixing last said (false until it says). */
  get isRemixing(): boolean {
    return this.#state.isRemixing;
  }

  /** The editor's attributes as onSetRemixing last gave them (`{}` until it does). */
  get editorAttributes(): Partial<EditorAttributes> {
    return { ...this.#state.editorAttributes };
  }

  /** The path of the open control as onSetActivePath last gave it, or null. */
  get activePath(): string[] | null {
    const path = this.#state.activePath;
    return path === null ? null : [...path];
  }

  /** {@link InstantRemixing.activePath} under the original platform's name. */
  get remixingActivePath(): string[] | null {
    return this.activePath;
  }

  /** Removes every listener of this object; other InstantRemixing objects keep theirs. */
  dispose(): void {
    this.#listeners.value.clear();
    this.#listeners.activePath.clear();
    this.#listeners.remixing.clear();
    this.#listeners.error.clear();
    this.#state.instances.delete(this.#listeners);
  }

  #settle(method: string, call: Promise<void>): Promise<void> {
    return settleCall(method, call, this.#allErrorListeners);
  }

  /** {@link InstantRemixing.#errorListeners}, bound once: every call passes it on. */
  readonly #allErrorListeners = (): Iterable<CallErrorHandler> => this.#errorListeners();

  /** Every instance's onError listeners: a page has one remix state, so a failure concerns all of them. */
  *#errorListeners(): Iterable<CallErrorHandler> {
    for (const listeners of this.#state.instances) yield* listeners.error;
  }
}

function isPlainObject(value: PlainData): value is { [key: string]: PlainData } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
