/**
 * Where the built customization of a template lives in the page.
 *
 * The generated module that `platform-vcc` or the Vite plugin writes calls
 * {@link defineCustomization} when the template imports it. The store hangs
 * off a global symbol so that two copies of this library in one page (a
 * bundled copy and a linked one, say) still agree on one set of values.
 */
import { EMPTY_CUSTOMIZATION, type BuiltCustomization } from '../protocol/customization.js';

type Listener = (next: BuiltCustomization, previous: BuiltCustomization) => void;

interface Store {
  current: BuiltCustomization;
  listeners: Set<Listener>;
}

const STORE_KEY = Symbol.for('platform-kit.customization');

function store(): Store {
  const holder = globalThis as unknown as { [STORE_KEY]?: Store };
  holder[STORE_KEY] ??= { current: EMPTY_CUSTOMIZATION, listeners: new Set() };
  return holder[STORE_KEY];
}

/**
 * Registers the template's built customization. Called by the generated
 * module; calling it again (a hot update) replaces the values and tells every
 * InstantRemixing so that changed values reach onValueChanged.
 */
export function defineCustomization(customization: BuiltCustomization): void {
  const state = store();
  const previous = state.current;
  state.current = customization;
  if (previous !== EMPTY_CUSTOMIZATION) for (const listener of state.listeners) listener(customization, previous);
}

/** The built customization registered so far (empty until the generated module ran). */
export function getBuiltCustomization(): BuiltCustomization {
  return store().current;
}

/** Subscribes to hot updates of the built customization. Returns the unsubscribe function. */
export function onBuiltCustomizationChanged(listener: Listener): () => void {
  const { listeners } = store();
  listeners.add(listener);
  return () => listeners.delete(listener);
}
