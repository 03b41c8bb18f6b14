/**
 * Remixes the editor is previewing, not yet published: what the platform
 * forwards to a template's backend in Preview, so "Open the vault" in Preview
 * answers with the name and secret being edited, as the published remix will.
 * In memory and bounded (the oldest preview goes first); an editor page sends
 * its values again after every change.
 */
import type { PublishedRemix } from '../catalog.js';

/** Ids the editor makes for its previews; never a published remix's. */
export const PREVIEW_ID_PATTERN = /^preview-[A-Za-z0-9_-]{8,40}$/;
/** Most previews kept at once. */
const MAX_PREVIEWS = 200;

export interface Preview {
  readonly template: string;
  readonly values: PublishedRemix['values'];
}

export class PreviewStore {
  readonly #previews = new Map<string, Preview>();

  set(id: string, preview: Preview): void {
    // Delete first: a Map keeps insertion order, so the first key is always the least recently set.
    this.#previews.delete(id);
    this.#previews.set(id, preview);
    for (const oldest of this.#previews.keys()) {
      if (this.#previews.size <= MAX_PREVIEWS) break;
      this.#previews.delete(oldest);
    }
  }

  get(id: string): Preview | undefined {
    return PREVIEW_ID_PATTERN.test(id) ? this.#previews.get(id) : undefined;
  }
}
