/**
 * The page-wide remix state every InstantRemixing of a page shares: the
 * host's values over the built ones, what the host last said (remixing,
 * editor attributes, the open control), the template's onSetValue calls in
 * flight, the values it read before the host's arrived, and the listeners of
 * every instance. Apart from instant-remixing.ts, which is the spec's class
 * over it, because this is the link's side: every host notification lands here.
 */
import { assertPlainData, assertVccPath, clonePlain, isVccPath, readPath, type PlainData, type VccPath } from '../protocol/data.js';
import { PlatformError } from '../protocol/errors.js';
import { isEditorAttributes, type EditorAttributes, type ValueOverrides } from '../protocol/link.js';
import { writeInside } from '../protocol/vcc-paths.js';
import type { CallErrorHandler } from './call-failures.js';
import type { GuestLink } from './link.js';
import { getBuiltCustomization, onBuiltCustomizationChanged } from './registry.js';

/**
 * Receives a changed value: onValueChanged. After a change deeper than
 * `[scope, key]` (an onSetValue of `['general', 'reveal', 'image']`), the path
 * is `[scope, key]` and the value the whole value there, as the original
 * platform reported it.
 */
export type ValueChangedHandler = (path: string[], newValue: unknown) => void;
/**
 * Receives the path of the open control, or null when none is:
 * onSetActivePath. Declared as a method so that a handler written to the
 * spec's signature, `(path: string[]) => …`, type-checks under `strict` too;
 * such a handler must still expect null when the control closes.
 */
export type ActivePathHandler = { handle(path: string[] | null): void }['handle'];
/** Receives the remix state: onSetRemixing. */
export type RemixingHandler = (isRemixing: boolean, editorAttributes: EditorAttributes) => void;

export type Listeners = {
  value: Set<ValueChangedHandler>;
  activePath: Set<ActivePathHandler>;
  remixing: Set<RemixingHandler>;
  error: Set<CallErrorHandler>;
};

/**
 * The page-wide remix state that every InstantRemixing shares: the host's
 * values over the built ones, and the listeners of every instance.
 */
export class GuestRemixState {
  overrides: ValueOverrides = {};
  /**
   * This page's onSetValue calls still unanswered, by `[scope, key]` (as
   * {@link flightKey}). The host echoes each before answering it, in order: an echo that
   * arrives while later calls for the same value are still unanswered is older
   * than what this page holds. And a refusal restores the value the host last
   * accepted, only when it answers the latest call: an older call's refusal
   * must not take back a newer value still on its way.
   */
  readonly inFlight = new Map<string, InFlightSets>();
  readonly instances = new Set<Listeners>();
  readonly link: GuestLink;
  /** What the host last said, for the read-only getters; kept by the same notifications the listeners hear. */
  isRemixing = false;
  editorAttributes: Partial<EditorAttributes> = {};
  activePath: readonly string[] | null = null;
  /**
   * What the template read (`[scope, key]` or `[scope]`) before the host's values arrived, or
   * null once they have. Why: templates of the original platform read their values once at
   * start-up, when the original had them already; here they come over the link a moment
   * later, so such a template would show the built defaults in a remix or a published item.
   * Each value read early that the host's values change is told to onValueChanged once the
   * template is ready, as the change it is for the template.
   */
  #earlyReads: Map<string, VccPath> | null = new Map();
  #readyCalled = false;
  #heldChanges: VccPath[] = [];

  constructor(link: GuestLink) {
    this.link = link;
    link.handle('describe', () => getBuiltCustomization());
    link.handle('sync', (snapshot: unknown) => {
      const next = parseOverrides(snapshot);
      const early = this.#earlyReads;
      this.#earlyReads = null;
      const before = early ? [...early.values()].map((path) => [path, JSON.stringify(this.read(path))] as const) : [];
      this.overrides = next;
      for (const [path, text] of before) if (JSON.stringify(this.read(path)) !== text) this.#heldChanges.push(path);
      this.#flushHeldChanges();
    });
    link.handle('valueChanged', (path: unknown, value: unknown) => {
      const checkedPath = assertVccPath(path);
      const checkedValue = assertPlainData(value);
      const scope = checkedPath[0] ?? '';
      const key = checkedPath[1] ?? '';
      const flight = checkedPath.length > 1 && this.inFlight.size > 0 ? this.inFlight.get(flightKey(scope, key)) : undefined;
      if (flight && flight.echoes > 1) {
        // The echo of one of this page's keystrokes, with later ones already applied here: applying
        // it would take back what was typed since. The listeners hear the value as it is here;
        // the echo of the last call brings the host's whole value.
        this.emitValue([scope, key], this.read([scope, key]));
        return;
      }
      // The echo of this template's own onSetValue finds the value in place already: no copy of
      // the overrides before the listeners run. Only primitives compare equal this way.
      if (!this.holds(checkedPath, checkedValue)) this.applyOverride(checkedPath, checkedValue);
      if (flight) flight.lastGood = readPath(this.overrides, [scope, key]);
      // A deeper change is told as the whole [scope, key] value, as the original platform did.
      if (checkedPath.length > 2) this.emitValue(checkedPath.slice(0, 2), this.read(checkedPath.slice(0, 2)));
      else this.emitValue(checkedPath, checkedValue);
    });
    link.handle('activePathChanged', (path: unknown) => {
      if (path !== null && !isVccPath(path)) throw new PlatformError('INVALID_PATH', 'activePathChanged needs a path or null');
      this.activePath = path === null ? null : [...path];
      for (const listeners of this.instances) for (const handler of listeners.activePath) safely(() => handler(path === null ? null : [...path]));
    });
    link.handle('remixingChanged', (isRemixing: unknown, attributes: unknown) => {
      if (typeof isRemixing !== 'boolean' || !isEditorAttributes(attributes)) {
        throw new PlatformError('INVALID_ARGUMENT', 'remixingChanged needs (boolean, {type, mode})');
      }
      const copy: EditorAttributes = { type: attributes.type, mode: attributes.mode };
      this.isRemixing = isRemixing;
      this.editorAttributes = copy;
      for (const listeners of this.instances) for (const handler of listeners.remixing) safely(() => handler(isRemixing, copy));
    });
    // The editor opens a control where the user last clicked when the template gives no position.
    if (typeof document !== 'undefined') {
      document.addEventListener(
        'pointerdown',
        (event) => {
          if (this.link.state !== 'linked') return;
          this.link.call('reportPointer', { x: event.clientX, y: event.clientY }).catch((error: unknown) => {
            // Only a hint for placing controls: losing one is harmless, so it is not raised to the template.
            console.debug('platform-kit: a pointer report was not delivered', error);
          });
        },
        { capture: true, passive: true },
      );
    }
    // Hot updates of the built values (Vite plugin): values the host has not overridden changed.
    onBuiltCustomizationChanged((next, previous) => {
      if (this.link.state !== 'linked') return;
      for (const [scope, entries] of Object.entries(next.values)) {
        for (const [key, value] of Object.entries(entries)) {
          const path = [scope, key];
          if (readPath(this.overrides, path) !== undefined) continue;
          if (JSON.stringify(readPath(previous.values, path)) !== JSON.stringify(value)) this.emitValue(path, value);
        }
      }
    });
  }

  applyOverride(path: VccPath, value: PlainData): void {
    this.overrides = this.withOverride(path, value);
  }

  /** The overrides with `value` at `path`; changes nothing. Throws when the path does not fit the current value (a list index past its end). */
  withOverride(path: VccPath, value: PlainData): ValueOverrides {
    // Indexes, not `[scope, key, ...rest] = path`: that walks an iterator and makes an array on every keystroke.
    const scope = path[0];
    const key = path[1];
    if (scope === undefined) return this.overrides;
    if (key === undefined) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new PlatformError('INVALID_VALUE', 'the value of a whole scope must be an object');
      }
      return { ...this.overrides, [scope]: value };
    }
    // A deeper path edits inside the current value of [scope, key].
    const entry = path.length === 2 ? value : writeInside(this.read([scope, key]), path.slice(2), value);
    return { ...this.overrides, [scope]: { ...this.overrides[scope], [key]: entry } };
  }

  /** True when the override at `[scope, key]` is `value` itself (a primitive, or the very same object). */
  holds(path: VccPath, value: PlainData): boolean {
    if (path.length !== 2) return false;
    const [scope, key] = path as readonly [string, string];
    const entries = Object.prototype.hasOwnProperty.call(this.overrides, scope) ? this.overrides[scope] : undefined;
    return entries !== undefined && Object.prototype.hasOwnProperty.call(entries, key) && Object.is(entries[key], value);
  }

  /** Puts back the override at `[scope, key]` as it was (undefined: no override). */
  restore(scope: string, key: string, previous: unknown): void {
    const { [key]: _dropped, ...others } = this.overrides[scope] ?? {};
    this.overrides = { ...this.overrides, [scope]: previous === undefined ? others : { ...others, [key]: previous as PlainData } };
  }

  /** get()'s read: {@link GuestRemixState.read}, remembered when the host's values have not arrived yet. */
  readForTemplate(path: VccPath): unknown {
    const early = this.#earlyReads;
    if (early && early.size < MAX_EARLY_READS && path.length > 0) {
      const head = path.slice(0, 2);
      early.set(head.join('\u0000'), head);
    }
    return this.read(path);
  }

  /** The template called ready(): its listeners are set, so what it missed can be told. */
  markReady(): void {
    this.#readyCalled = true;
    queueMicrotask(() => this.#flushHeldChanges());
  }

  #flushHeldChanges(): void {
    if (!this.#readyCalled || this.#heldChanges.length === 0) return;
    const held = this.#heldChanges;
    this.#heldChanges = [];
    for (const path of held) this.emitValue(path, this.read(path));
  }

  read(path: VccPath): unknown {
    const [scope, key, ...rest] = path;
    if (scope === undefined) return undefined;
    const built = getBuiltCustomization().values;
    if (key === undefined) {
      const builtScope = readPath(built, [scope]);
      const overrideScope = readPath(this.overrides, [scope]);
      if (builtScope === undefined && overrideScope === undefined) return undefined;
      return { ...(builtScope as object | undefined), ...(overrideScope as object | undefined) };
    }
    const own = readPath(this.overrides, [scope, key]);
    const value = own !== undefined ? own : readPath(built, [scope, key]);
    return rest.length === 0 ? value : readPath(value, rest);
  }

  emitValue(path: VccPath, value: unknown): void {
    for (const listeners of this.instances) {
      for (const handler of listeners.value) {
        // Each listener gets its own copies, so one cannot change what the next one sees.
        try {
          handler([...path], clonePlain(value as PlainData));
        } catch (error) {
          reportListenerError(error);
        }
      }
    }
  }
}

/**
 * The key of `[scope, key]` in {@link GuestRemixState.inFlight}: the scope's length first, so no
 * two paths share a key whatever their names hold. Built on every keystroke and every echo, where
 * `JSON.stringify([scope, key])` cost three to four times as much (measured).
 */
export function flightKey(scope: string, key: string): string {
  return `${scope.length}:${scope}${key}`;
}

/** onSetValue calls of one `[scope, key]` not yet answered (GuestRemixState.inFlight). */
interface InFlightSets {
  /** Calls unanswered. */
  calls: number;
  /** Of them, those the host echoes (without skipUpdate). */
  echoes: number;
  /** Number of the latest call. */
  latest: number;
  /** The value at `[scope, key]` the host last accepted (undefined: no override). */
  lastGood: unknown;
}

/** How many distinct early reads are remembered: a template reads its few values, not thousands. */
const MAX_EARLY_READS = 256;

/** A throwing template listener must not break delivery to the others or answer the host with an error. */
export function safely(run: () => void): void {
  try {
    run();
  } catch (error) {
    reportListenerError(error);
  }
}

export function reportListenerError(error: unknown): void {
  console.error('platform-kit: a listener threw', error);
}

function parseOverrides(snapshot: unknown): ValueOverrides {
  if (typeof snapshot !== 'object' || snapshot === null) throw new PlatformError('INVALID_ARGUMENT', 'sync needs a snapshot object');
  const values = assertPlainData((snapshot as { values?: unknown }).values ?? {}, Number.MAX_SAFE_INTEGER);
  if (typeof values !== 'object' || values === null || Array.isArray(values)) throw new PlatformError('INVALID_ARGUMENT', 'snapshot.values must be an object');
  for (const scope of Object.values(values)) {
    if (typeof scope !== 'object' || scope === null || Array.isArray(scope)) throw new PlatformError('INVALID_ARGUMENT', 'each scope of snapshot.values must be an object');
  }
  return values as ValueOverrides;
}
