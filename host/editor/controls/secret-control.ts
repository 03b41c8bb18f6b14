/**
 * `<platform-secret-control>`: a secret (an API key, say). What the user
 * types goes to the host's keystore function and is forgotten at once; only
 * the key path it returns (`platform-keystore://…`) becomes the VCC's value,
 * so the secret never enters the remix, its draft or the template.
 */
import { html, type PropertyDeclarations, type TemplateResult } from 'lit';
import { KEYSTORE_SCHEME } from '../../../protocol/customization.js';
import { PlatformError } from '../../../protocol/errors.js';
import { VccControl } from './control-base.js';

/** Edits a `secret` VCC. */
export class SecretControl extends VccControl {
  static override properties: PropertyDeclarations = {
    storing: { state: true },
  };

  /** True while the keystore function runs. */
  declare protected storing: boolean;

  constructor() {
    super();
    this.storing = false;
  }

  override render(): TemplateResult {
    const keyPath = typeof this.value === 'string' ? this.value : '';
    return html`<div class="field">
      <label for="input">${this.name}</label>
      <div class="row">
        <input
          id="input"
          type="password"
          autocomplete="off"
          spellcheck="false"
          placeholder=${keyPath ? 'Type a new value to replace it' : 'Type the secret value'}
          ?disabled=${this.disabled || this.storing}
          aria-invalid=${this.error ? 'true' : 'false'}
          aria-describedby=${`${this.describedBy} status`}
          @keydown=${this.#onKeydown}
        />
        <button id="store" type="button" ?disabled=${this.disabled || this.storing} @click=${this.#store}>Store</button>
      </div>
      <p class="description" id="status" role="status">${this.storing ? 'Storing…' : keyPath ? `Stored as ${keyPath}` : 'No value stored'}</p>
      ${this.renderNotes()}
    </div>`;
  }

  readonly #onKeydown = (event: KeyboardEvent): void => {
    if (event.key === 'Enter') {
      event.preventDefault();
      void this.#store();
    } else if (event.key === 'Escape' && (event.target as HTMLInputElement).value !== '') {
      // Escape first throws away what was typed; a second escape reaches the overlay.
      event.stopPropagation();
      (event.target as HTMLInputElement).value = '';
    }
  };

  readonly #store = async (): Promise<boolean> => {
    const input = this.renderRoot.querySelector<HTMLInputElement>('#input');
    if (!input || this.storing) return false;
    const secret = input.value;
    if (secret === '') {
      this.refuse(new PlatformError('INVALID_VALUE', 'type a value to store'));
      return false;
    }
    const storeSecret = this.services.storeSecret;
    if (!storeSecret) {
      this.refuse(new PlatformError('UNSUPPORTED', 'this editor was given no keystore function'));
      return false;
    }
    // Cleared before the call: the secret stays in the page no longer than it must.
    input.value = '';
    this.storing = true;
    try {
      const keyPath = await storeSecret(secret, { path: this.path });
      if (typeof keyPath !== 'string' || !keyPath.startsWith(KEYSTORE_SCHEME)) {
        throw new PlatformError('INVALID_VALUE', `the keystore answered without a key path (${KEYSTORE_SCHEME}…)`);
      }
      const stored = this.commitValue(keyPath);
      if (stored) this.commit();
      return stored;
    } catch (error) {
      this.refuse(
        error instanceof PlatformError ? error : new PlatformError('INTERNAL', `the secret could not be stored: ${error instanceof Error ? error.message : String(error)}`),
      );
      return false;
    } finally {
      this.storing = false;
      await this.updateComplete;
      input.focus();
    }
  };
}
