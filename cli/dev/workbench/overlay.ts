/**
 * The customization overlay, as Vite's error overlay does for code: problems in
 * `.platform/customization/*.json` shown over the workbench the moment the file is saved, with
 * the last good version still in use (the build keeps it), and gone once the file is good again.
 */
export class ProblemOverlay {
  readonly #overlay: HTMLElement;
  readonly #staleLines: HTMLElement[] = [];
  #dismissed = '';

  constructor(overlay: HTMLElement) {
    this.#overlay = overlay;
  }

  /** A line shown in a pane while there are problems (the editor's: the last good version is in use). */
  addStaleLine(line: HTMLElement): void {
    line.className = 'stale';
    line.setAttribute('role', 'status');
    line.hidden = true;
    this.#staleLines.push(line);
  }

  show(problems: readonly string[]): void {
    const text = problems.join('\n');
    for (const line of this.#staleLines) {
      line.hidden = problems.length === 0;
      line.textContent = `The customization has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}: the last good version is in use.`;
    }
    if (problems.length === 0 || text === this.#dismissed) {
      this.#overlay.hidden = true;
      if (problems.length === 0) this.#dismissed = '';
      return;
    }
    const box = document.createElement('div');
    const title = document.createElement('h2');
    title.id = 'overlay-title';
    title.textContent = 'Problems in the customization files';
    const list = document.createElement('pre');
    list.style.margin = '0';
    list.style.whiteSpace = 'pre-wrap';
    list.textContent = text;
    const note = document.createElement('p');
    note.textContent = 'The last good version of each file is in use until you fix it; this closes by itself when the files are good.';
    const close = document.createElement('button');
    close.type = 'button';
    close.textContent = 'Dismiss';
    close.addEventListener('click', () => {
      this.#dismissed = text;
      this.#overlay.hidden = true;
    });
    box.append(title, list, note, close);
    this.#overlay.replaceChildren(box);
    this.#overlay.hidden = false;
  }
}
