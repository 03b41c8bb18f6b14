/**
 * `EditorStatus`: what `<platform-editor>` tells the user went wrong: the
 * bar's status line and the errors shown under controls.
 *
 * Each says what is true now. An error under a control goes at the next
 * accepted value of its `[scope, key]` (also one of a field inside it, a
 * deep control); the status line's message goes at the next accepted value
 * of the path it is about (of any path for a message about none) and at a
 * switch to or from the preview. (A control's own refusals, a failed
 * upload, go when the value it shows changes: VccControl.willUpdate.)
 */
import type { ReactiveControllerHost } from 'lit';
import { withoutPrefix, type PlatformError } from '../../protocol/errors.js';

const pathKey = (path: readonly string[]): string => JSON.stringify(path);

/** The editor's status line and control errors. See the module comment. */
export class EditorStatus {
  readonly #host: ReactiveControllerHost;
  #message = '';
  /** The `[scope, key]` (as JSON) the message is about, '' for none, null when there is no message. */
  #about: string | null = null;
  /** Errors the session gave for values of controls, by path (as JSON). */
  readonly #errors = new Map<string, string>();

  constructor(host: ReactiveControllerHost) {
    this.#host = host;
  }

  /** The status line's message ('' for none). */
  get message(): string {
    return this.#message;
  }

  /** The error shown under the control of `path`, if any. */
  errorOf(path: readonly string[]): string | undefined {
    return this.#errors.get(pathKey(path));
  }

  /** Shows `error` in the status line, about the `[scope, key]` that starts `path` (about none without one). */
  report(error: PlatformError, path?: readonly string[]): void {
    const [scope, key] = path ?? [];
    this.#show(withoutPrefix(error.message), scope !== undefined && key !== undefined ? pathKey([scope, key]) : '');
  }

  /** A message about no path (the draft was restored), until the next accepted value. */
  note(message: string): void {
    this.#show(message, '');
  }

  /** The session refused the value of the control of `path`: shown under it, and in the status line. */
  refused(path: readonly string[], error: PlatformError): void {
    this.#errors.set(pathKey(path), withoutPrefix(error.message));
    this.report(error, path);
  }

  /** A value of `[scope, key]` was accepted: it answers every refusal of it and of the fields inside it. */
  accepted(scope: string, key: string): void {
    const entry = pathKey([scope, key]);
    const inside = `${entry.slice(0, -1)},`;
    for (const errorPath of [...this.#errors.keys()]) {
      if (errorPath === entry || errorPath.startsWith(inside)) this.#errors.delete(errorPath);
    }
    if (this.#about === '' || this.#about === entry) this.clear();
    this.#host.requestUpdate();
  }

  /** Clears the status line (the control errors stay). */
  clear(): void {
    this.#show('', null);
  }

  /** Forgets the control errors: a new template (the status line says why it went, if it did). */
  forgetControlErrors(): void {
    this.#errors.clear();
  }

  #show(message: string, about: string | null): void {
    this.#message = message;
    this.#about = about;
    this.#host.requestUpdate();
  }
}
