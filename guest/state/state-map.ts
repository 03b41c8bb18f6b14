/**
 * {@link StateMap}: the common case of a shard's state, a map of keys to
 * plain JSON values (a score, a board), over one `Y.Map` of the document.
 * Values are checked as event payloads are (plain data: no functions, class
 * instances, cycles, `__proto__`/`constructor`/`prototype` keys, nesting past
 * 32 levels) and kept whole: a value is replaced, never merged field by field.
 */
import type * as Y from 'yjs';
import { assertPlainData } from '../../protocol/data.js';
import { PlatformError } from '../../protocol/errors.js';

/** A map of keys to plain JSON values, shared by every member of the shard. */
export interface StateMap<T> {
  /** The value of `key`, or undefined. */
  get(key: string): T | undefined;
  /** Sets `key` (a plain JSON value; `INVALID_VALUE` otherwise); every member sees it. */
  set(key: string, value: T): void;
  /** Deletes `key`. */
  delete(key: string): void;
  /** Every key and value now. */
  entries(): Array<[string, T]>;
  /** Fires after local and remote changes with the keys that changed (value undefined = deleted). Returns unsubscribe. */
  onChange(callback: (changed: ReadonlyMap<string, T | undefined>, origin: 'local' | 'remote') => void): () => void;
}

/** Largest single value, in UTF-8 bytes of JSON: the whole state is bounded by the server anyway. */
const MAX_VALUE_BYTES = 256 * 1024;

/** A {@link StateMap} over `map`. */
export function stateMap<T>(map: Y.Map<unknown>): StateMap<T> {
  return {
    get: (key) => map.get(key) as T | undefined,
    set(key, value) {
      if (typeof key !== 'string') throw new PlatformError('INVALID_ARGUMENT', 'a state key is a string');
      if (value === undefined) throw new PlatformError('INVALID_VALUE', 'undefined is not a state value: delete(key) removes a key');
      map.set(key, assertPlainData(value, MAX_VALUE_BYTES));
    },
    delete(key) {
      map.delete(key);
    },
    entries: () => [...map.entries()] as Array<[string, T]>,
    onChange(callback) {
      const observer = (event: Y.YMapEvent<unknown>, transaction: Y.Transaction): void => {
        const changed = new Map<string, T | undefined>();
        for (const key of event.keysChanged as Set<string>) changed.set(key, map.get(key) as T | undefined);
        try {
          callback(changed, transaction.local ? 'local' : 'remote');
        } catch (error) {
          // One listener's bug must not stop Yjs's other observers.
          console.error('platform-kit: a state listener threw', error);
        }
      };
      map.observe(observer);
      return () => map.unobserve(observer);
    },
  };
}
