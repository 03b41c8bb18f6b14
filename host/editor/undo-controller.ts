/**
 * `UndoController`: undo and redo of `<platform-editor>`. It records every
 * value change of a `[scope, key]` (a burst of typing in one field is one
 * step, see history.ts), applies a step back through the session, and
 * answers ctrl/cmd+z, ctrl/cmd+shift+z and ctrl/cmd+y outside text fields.
 */
import type { BuiltCustomization } from '../../protocol/customization.js';
import type { PlainData, VccPath } from '../../protocol/data.js';
import { PlatformError } from '../../protocol/errors.js';
import type { RemixSession } from '../remix-session.js';
import { EditHistory } from './history.js';

/** Options of {@link UndoController}. */
export interface UndoControllerOptions {
  /** The session edits are recorded from and applied to. */
  readonly session: () => RemixSession | null;
  /** Called when a step could not be applied (the session refused it). */
  readonly failed: (error: PlatformError, path: VccPath) => void;
  /** Called after the history changed (the undo and redo buttons follow it). */
  readonly changed: () => void;
}

/** The editor's undo and redo. See the module comment. */
export class UndoController {
  readonly #history = new EditHistory();
  /** Last value seen at each `[scope, key]`: the `before` of the next history step. */
  readonly #known = new Map<string, PlainData | undefined>();
  readonly #options: UndoControllerOptions;
  #applying = false;

  constructor(options: UndoControllerOptions) {
    this.#options = options;
  }

  /** True when there is an edit to undo. */
  get canUndo(): boolean {
    return this.#history.canUndo;
  }

  /** True when there is an edit to redo. */
  get canRedo(): boolean {
    return this.#history.canRedo;
  }

  /** Forgets every step (a new session). */
  clear(): void {
    this.#history.clear();
    this.#known.clear();
  }

  /**
   * Notes that the value at `[scope, key]` changed; records a step unless
   * `record` is false (before the remix started) or the change is an undo or
   * redo being applied.
   */
  noteChange(scope: string, key: string, record: boolean): void {
    const session = this.#options.session();
    const entryPath = [scope, key];
    const entryKey = JSON.stringify(entryPath);
    const after = session?.get(entryPath);
    if (record && !this.#applying && after !== undefined) {
      const before = this.#known.has(entryKey) ? this.#known.get(entryKey) : builtValue(session?.customization ?? null, scope, key);
      this.#history.record(entryPath, before, after, performance.now());
    }
    this.#known.set(entryKey, after);
  }

  /** Undoes the last step; false when there was none. */
  undo(): boolean {
    return this.#apply('undo');
  }

  /** Redoes the last undone step; false when there was none. */
  redo(): boolean {
    return this.#apply('redo');
  }

  /** The editor's keydown listener: the undo and redo shortcuts outside text fields. */
  readonly onKeydown = (event: KeyboardEvent): void => {
    const modifier = event.ctrlKey || event.metaKey;
    if (!modifier || event.altKey) return;
    const key = event.key.toLowerCase();
    const isUndo = key === 'z' && !event.shiftKey;
    const isRedo = (key === 'z' && event.shiftKey) || key === 'y';
    if (!isUndo && !isRedo) return;
    // Text fields keep their own undo of what is being typed.
    const target = event.composedPath()[0];
    if (target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && /^(text|search|password|url|email|number|)$/.test(target.type))) return;
    event.preventDefault();
    if (isUndo) this.undo();
    else this.redo();
  };

  #apply(direction: 'undo' | 'redo'): boolean {
    const session = this.#options.session();
    const entry = direction === 'undo' ? this.#history.undo() : this.#history.redo();
    if (!session || !entry) return false;
    const value = direction === 'undo' ? entry.before : entry.after;
    if (value === undefined) {
      this.#options.changed();
      return false;
    }
    this.#applying = true;
    try {
      session.setValue(entry.path, value);
    } catch (error) {
      this.#options.failed(error instanceof PlatformError ? error : new PlatformError('INTERNAL', String(error)), entry.path);
    } finally {
      this.#applying = false;
    }
    this.#options.changed();
    return true;
  }
}

function builtValue(customization: BuiltCustomization | null, scope: string, key: string): PlainData | undefined {
  const entries = customization?.values[scope];
  return entries && Object.prototype.hasOwnProperty.call(entries, key) ? entries[key] : undefined;
}
