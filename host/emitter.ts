/**
 * A small typed event emitter: `on()` returns its own remover (STYLE.md 7),
 * and a throwing listener never stops the others.
 */
export class Emitter<Events extends object> {
  readonly #listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  /** Adds a listener; returns the function that removes it. */
  on<Name extends keyof Events>(name: Name, listener: (payload: Events[Name]) => void): () => void {
    let set = this.#listeners.get(name);
    if (!set) this.#listeners.set(name, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /** True when `name` has a listener: lets a hot path skip building a payload nobody hears. */
  has<Name extends keyof Events>(name: Name): boolean {
    const set = this.#listeners.get(name);
    return set !== undefined && set.size > 0;
  }

  /** Calls every listener of `name` with `payload`. */
  emit<Name extends keyof Events>(name: Name, payload: Events[Name]): void {
    const set = this.#listeners.get(name);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as (payload: Events[Name]) => void)(payload);
      } catch (error) {
        console.error(`platform-kit: a "${String(name)}" listener threw`, error);
      }
    }
  }

  /** Removes every listener. */
  clear(): void {
    this.#listeners.clear();
  }
}
