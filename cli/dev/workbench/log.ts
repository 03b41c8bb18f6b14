/**
 * The workbench's log: what crossed the link (calls the template made, values, feed events)
 * and what the signaling server saw (players joining and leaving shards), newest first.
 */

/** Most lines kept: an author's session is long, and the page must not grow without end. */
const MAX_LINES = 500;

export class WorkbenchLog {
  readonly #list: HTMLOListElement;

  constructor(list: HTMLOListElement) {
    this.#list = list;
  }

  /** Adds a line: `source` is where it happened (editor, feed, player 2, server), `text` what. */
  add(source: string, text: string): void {
    const item = document.createElement('li');
    const time = document.createElement('time');
    time.textContent = new Date().toLocaleTimeString();
    const from = document.createElement('b');
    from.textContent = source;
    item.append(time, from, text);
    this.#list.prepend(item);
    while (this.#list.childElementCount > MAX_LINES) this.#list.lastElementChild?.remove();
  }
}

/** A value as a short line of the log. */
export function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}
