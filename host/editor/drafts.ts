/**
 * Drafts of remixes in progress, kept in IndexedDB (idb-keyval) so that a
 * crash or a reload loses at most the last few hundred milliseconds of work.
 *
 * One record per project and remix, under the key `${projectId}:${remixId}`,
 * in a store of its own (`platform-kit` / `drafts`) so nothing else in the
 * page's default idb-keyval store is touched. The store is opened on first
 * use, never on import.
 *
 * A stored draft is read back as untrusted data: another version of the kit,
 * another tab or a user with devtools may have written it. {@link loadDraft}
 * checks its shape; the editor then checks every value against its VCC type.
 */
import { createStore, del, entries, get, promisifyRequest, type UseStore } from 'idb-keyval';
import { assertPlainData, type PlainData } from '../../protocol/data.js';
import { PlatformError } from '../../protocol/errors.js';
import type { ValueOverrides } from '../../protocol/link.js';

/** Format version of a stored {@link Draft}. */
export const DRAFT_VERSION = 1;
/** Largest draft accepted, in UTF-8 bytes of JSON: a remix is at most a few hundred values. */
export const MAX_DRAFT_BYTES = 8 * 1024 * 1024;
/** Longest wait between an edit and its save, in ms (the issue promises at most 500). */
export const DEFAULT_DRAFT_DELAY_MS = 200;

/** What is stored for one remix in progress. */
export interface Draft {
  readonly version: typeof DRAFT_VERSION;
  readonly projectId: string;
  readonly remixId: string;
  /** The values set in this remix (RemixSession.overrides). */
  readonly values: ValueOverrides;
  /** When it was saved, ms since the epoch. */
  readonly savedAt: number;
}

/** One entry of {@link listDrafts}. */
export interface DraftSummary {
  readonly projectId: string;
  readonly remixId: string;
  readonly savedAt: number;
  /** How many values the draft holds. */
  readonly valueCount: number;
}

let draftStore: UseStore | null = null;

/** The drafts store, opened on first use. */
function store(): UseStore {
  draftStore ??= createStore('platform-kit', 'drafts');
  return draftStore;
}

/** The IndexedDB key of a draft. A projectId holds no ':' so that every key splits back one way. */
export function draftKey(projectId: string, remixId: string): string {
  checkId(projectId, 'projectId');
  checkId(remixId, 'remixId');
  if (projectId.includes(':')) throw new PlatformError('INVALID_ARGUMENT', 'a projectId for drafts cannot contain ":"');
  return `${projectId}:${remixId}`;
}

/** Saves the values of a remix in progress, replacing its earlier draft. */
export async function saveDraft(projectId: string, remixId: string, values: ValueOverrides): Promise<void> {
  const key = draftKey(projectId, remixId);
  const checked = assertPlainData(values, MAX_DRAFT_BYTES);
  const draft: Draft = { version: DRAFT_VERSION, projectId, remixId, values: checked as ValueOverrides, savedAt: Date.now() };
  await store()('readwrite', (objectStore) => {
    objectStore.put(draft, key);
    // Commit now rather than when the task ends: a save started in pagehide must not wait for a page that is going away.
    objectStore.transaction.commit();
    return promisifyRequest(objectStore.transaction);
  });
}

/**
 * Reads the draft of a remix; undefined when there is none. Throws
 * `INVALID_VALUE` when what is stored is not a draft at all (then the caller
 * decides whether to discard it); the values inside are not checked against
 * their VCC types here: the editor does that once it knows the template.
 */
export async function loadDraft(projectId: string, remixId: string): Promise<Draft | undefined> {
  const stored: unknown = await get(draftKey(projectId, remixId), store());
  return stored === undefined ? undefined : parseDraft(stored);
}

/** Every stored draft, newest first. Records that are not drafts are skipped. */
export async function listDrafts(): Promise<DraftSummary[]> {
  const all = await entries<IDBValidKey, unknown>(store());
  const summaries: DraftSummary[] = [];
  for (const [, stored] of all) {
    try {
      const draft = parseDraft(stored);
      const valueCount = Object.values(draft.values).reduce((count, scope) => count + Object.keys(scope).length, 0);
      summaries.push({ projectId: draft.projectId, remixId: draft.remixId, savedAt: draft.savedAt, valueCount });
    } catch (error) {
      // A record this version cannot read is not a draft it can offer; it stays until discarded.
      console.warn('platform-kit: skipped an unreadable draft', error);
    }
  }
  return summaries.sort((a, b) => b.savedAt - a.savedAt);
}

/** Deletes the draft of a remix (after it was published, or when the user throws it away). */
export async function discardDraft(projectId: string, remixId: string): Promise<void> {
  await del(draftKey(projectId, remixId), store());
}

/** Checks a stored record; throws `INVALID_VALUE` saying what is wrong. */
export function parseDraft(stored: unknown): Draft {
  const fail = (reason: string): never => {
    throw new PlatformError('INVALID_VALUE', `the stored draft is unreadable: ${reason}`);
  };
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return fail('not an object');
  const { version, projectId, remixId, values, savedAt } = stored as Record<string, unknown>;
  if (version !== DRAFT_VERSION) fail(`unknown version ${String(version)}`);
  if (typeof projectId !== 'string' || typeof remixId !== 'string') fail('projectId and remixId must be strings');
  if (typeof savedAt !== 'number' || !Number.isFinite(savedAt)) fail('savedAt must be a number');
  let checked: PlainData;
  try {
    checked = assertPlainData(values, MAX_DRAFT_BYTES);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  if (typeof checked !== 'object' || checked === null || Array.isArray(checked)) return fail('values must be an object');
  for (const scope of Object.values(checked)) {
    if (typeof scope !== 'object' || scope === null || Array.isArray(scope)) fail('each scope of values must be an object');
  }
  return { version: DRAFT_VERSION, projectId: projectId as string, remixId: remixId as string, values: checked as ValueOverrides, savedAt: savedAt as number };
}

/** Options of {@link DraftSaver}. */
export interface DraftSaverOptions {
  readonly projectId: string;
  readonly remixId: string;
  /** Longest wait between an edit and its save, in ms. Default {@link DEFAULT_DRAFT_DELAY_MS}. */
  readonly delayMs?: number;
  /** A save failed (quota, private mode): the editor tells the user. */
  readonly onError?: (error: PlatformError) => void;
}

/**
 * Saves a remix's values at most `delayMs` after each edit, and at once when
 * the page is hidden or unloaded. A burst of edits is one write.
 *
 * Why the timer is not pushed back by every edit (a classic debounce): a user
 * who types without a pause would then never be saved; here the first edit
 * after a save arms the timer and later ones ride along.
 */
export class DraftSaver {
  readonly #projectId: string;
  readonly #remixId: string;
  readonly #delayMs: number;
  readonly #onError: ((error: PlatformError) => void) | undefined;
  #pending: ValueOverrides | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #lastWrite: Promise<void> = Promise.resolve();
  #disposed = false;

  constructor(options: DraftSaverOptions) {
    draftKey(options.projectId, options.remixId);
    this.#projectId = options.projectId;
    this.#remixId = options.remixId;
    this.#delayMs = Math.min(options.delayMs ?? DEFAULT_DRAFT_DELAY_MS, 500);
    this.#onError = options.onError;
    // pagehide covers reloads and navigation (and bfcache); visibilitychange covers a tab
    // put away and then killed by the OS, which never sees pagehide.
    window.addEventListener('pagehide', this.#flushNow);
    document.addEventListener('visibilitychange', this.#onVisibility);
  }

  /** Asks for `values` to be saved; the latest values win. */
  schedule(values: ValueOverrides): void {
    if (this.#disposed) return;
    this.#pending = values;
    this.#timer ??= setTimeout(this.#flushNow, this.#delayMs);
  }

  /** Saves what is pending now; resolves when every write so far is stored. */
  flush(): Promise<void> {
    this.#flushNow();
    return this.#lastWrite;
  }

  /** Saves what is pending and stops listening to the page. */
  dispose(): Promise<void> {
    const done = this.flush();
    this.#disposed = true;
    window.removeEventListener('pagehide', this.#flushNow);
    document.removeEventListener('visibilitychange', this.#onVisibility);
    return done;
  }

  /** Drops what is pending without saving (the draft is being discarded). */
  cancel(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#pending = null;
  }

  readonly #onVisibility = (): void => {
    if (document.visibilityState === 'hidden') this.#flushNow();
  };

  readonly #flushNow = (): void => {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const values = this.#pending;
    if (values === null) return;
    this.#pending = null;
    // Started synchronously, also inside pagehide: IndexedDB keeps a transaction the page already queued.
    const write = saveDraft(this.#projectId, this.#remixId, values).catch((error: unknown) => {
      this.#onError?.(error instanceof PlatformError ? error : new PlatformError('INTERNAL', `a draft could not be saved: ${String(error)}`));
    });
    this.#lastWrite = this.#lastWrite.then(() => write);
  };
}

function checkId(value: unknown, name: string): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > 256) {
    throw new PlatformError('INVALID_ARGUMENT', `a draft's ${name} must be a non-empty string of at most 256 characters`);
  }
}
