/**
 * Undo and redo of value edits: a pure stack of `{path, before, after}`,
 * unit tested in Node (test/node/editor-history.test.ts).
 *
 * Edits of the same path that follow each other within `coalesceMs` become
 * one step, so typing a word is undone as a word, not letter by letter; an
 * edit of another path, or a pause, starts a new step. A new edit after an
 * undo drops the steps that could have been redone (the usual linear model).
 */
import { samePath, type PlainData, type VccPath } from '../../protocol/data.js';

/** One undoable step: the value at `path` went from `before` to `after`. */
export interface HistoryEntry {
  readonly path: VccPath;
  /** The value before the step; undefined when the path had none. */
  readonly before: PlainData | undefined;
  readonly after: PlainData;
}

/** Options of {@link EditHistory}. */
export interface EditHistoryOptions {
  /** Edits of one path closer together than this merge into one step. Default 800. 0 never merges. */
  readonly coalesceMs?: number;
  /** Steps kept; the oldest go first. Default 200. */
  readonly maxEntries?: number;
}

/** The undo and redo stacks of one editor. */
export class EditHistory {
  readonly #undo: { entry: HistoryEntry; at: number }[] = [];
  readonly #redo: HistoryEntry[] = [];
  readonly #coalesceMs: number;
  readonly #maxEntries: number;
  /** Set by undo/redo: the next edit extends no step, even of the same path. */
  #sealed = false;

  constructor(options: EditHistoryOptions = {}) {
    this.#coalesceMs = options.coalesceMs ?? 800;
    this.#maxEntries = options.maxEntries ?? 200;
  }

  /** True when there is a step to undo. */
  get canUndo(): boolean {
    return this.#undo.length > 0;
  }

  /** True when there is a step to redo. */
  get canRedo(): boolean {
    return this.#redo.length > 0;
  }

  /** Steps on the undo stack. */
  get undoDepth(): number {
    return this.#undo.length;
  }

  /** Records an edit made at `nowMs` (any monotonic clock). An edit that changes nothing is not a step. */
  record(path: VccPath, before: PlainData | undefined, after: PlainData, nowMs: number): void {
    this.#redo.length = 0;
    const last = this.#undo[this.#undo.length - 1];
    if (last && !this.#sealed && samePath(last.entry.path, path) && nowMs - last.at <= this.#coalesceMs) {
      // Keep the first `before`: undo goes back to where the burst of edits started.
      if (sameValue(last.entry.before, after)) this.#undo.pop();
      else this.#undo[this.#undo.length - 1] = { entry: { path: last.entry.path, before: last.entry.before, after }, at: nowMs };
      return;
    }
    this.#sealed = false;
    if (sameValue(before, after)) return;
    this.#undo.push({ entry: { path: [...path], before, after }, at: nowMs });
    if (this.#undo.length > this.#maxEntries) this.#undo.shift();
  }

  /** Takes the step to undo (the caller applies `before`); undefined when there is none. */
  undo(): HistoryEntry | undefined {
    const step = this.#undo.pop();
    if (!step) return undefined;
    this.#redo.push(step.entry);
    this.#sealed = true;
    return step.entry;
  }

  /** Takes the step to redo (the caller applies `after`); undefined when there is none. */
  redo(): HistoryEntry | undefined {
    const entry = this.#redo.pop();
    if (!entry) return undefined;
    // Stamped at -infinity: a redone step never merges with the next edit.
    this.#undo.push({ entry, at: Number.NEGATIVE_INFINITY });
    this.#sealed = true;
    return entry;
  }

  /** Forgets every step (a new template, a discarded draft). */
  clear(): void {
    this.#undo.length = 0;
    this.#redo.length = 0;
    this.#sealed = false;
  }
}

function sameValue(a: PlainData | undefined, b: PlainData | undefined): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
