/**
 * `<platform-image-control>`, `<platform-sound-control>`,
 * `<platform-video-control>`, `<platform-file-control>` and
 * `<platform-secret-image-control>` (`secret<image>`, whose URL goes to the
 * keystore and only the key path is kept): pick a file (button,
 * or drop it on the control), check its type and size, upload it through the
 * host's upload function with a progress bar, and store the URL it returns.
 * A preview shows the local file while it uploads, then the stored one.
 */
import { css, html, nothing, type PropertyDeclarations, type TemplateResult } from 'lit';
import { DEFAULT_MAX_UPLOAD_BYTES, isSafeMediaUrl, KEYSTORE_SCHEME } from '../../../protocol/customization.js';
import { PlatformError } from '../../../protocol/errors.js';
import { unreachable } from '../../../protocol/exhaustive.js';
import { controlStyles, VccControl } from './control-base.js';

type MediaKind = 'image' | 'sound' | 'video' | 'file';

/** True when a file of MIME `type` and `name` matches one of the `accept` patterns (`image/*`, `image/png`, `.png`, `*\/*`). */
export function fileMatchesAccept(type: string, name: string, accept: readonly string[]): boolean {
  const lowerType = type.toLowerCase();
  const lowerName = name.toLowerCase();
  return accept.some((raw) => {
    const pattern = raw.trim().toLowerCase();
    if (pattern === '*' || pattern === '*/*') return true;
    if (pattern.startsWith('.')) return lowerName.endsWith(pattern);
    if (pattern.endsWith('/*')) return lowerType.startsWith(pattern.slice(0, -1));
    return lowerType === pattern;
  });
}

/** Shared by the four media controls; `kind` says which preview to draw. */
export abstract class MediaControl extends VccControl {
  static override properties: PropertyDeclarations = {
    progress: { state: true },
    localPreview: { state: true },
    durationS: { state: true },
  };

  static override styles = [
    controlStyles,
    css`
      .drop {
        border: 1px dashed var(--_border);
        border-radius: var(--_radius);
        padding: 8px;
        display: grid;
        grid-template-columns: minmax(0, 1fr);
        gap: var(--_gap);
      }
      .drop.over {
        border-color: var(--_accent);
        background: color-mix(in srgb, var(--_accent) 8%, transparent);
      }
      .preview img,
      .preview video {
        max-width: 100%;
        max-height: 160px;
        display: block;
      }
      /* The player's own width is 300 px, wider than a panel's column: it fits the column instead. */
      .preview audio {
        width: 100%;
        display: block;
      }
      progress {
        width: 100%;
      }
    `,
  ];

  /** Which media this control takes. */
  protected abstract readonly kind: MediaKind;
  /**
   * True for `secret<image>`: the uploaded file's URL goes to the host's
   * keystore function and only the key path it returns is stored.
   */
  protected readonly keepsSecret: boolean = false;
  /** Fraction uploaded (0–1) while an upload runs, else null. */
  declare protected progress: number | null;
  /** Object URL of the file being uploaded, shown until the upload ends. */
  declare protected localPreview: string | null;
  /** The preview's length in seconds once its metadata is in (a sound or a video), else null. */
  declare protected durationS: number | null;
  #abort: AbortController | null = null;
  #dragDepth = 0;

  constructor() {
    super();
    this.progress = null;
    this.localPreview = null;
    this.durationS = null;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#abort?.abort();
    this.#endPreview();
  }

  get #accept(): readonly string[] {
    const type = this.vccType;
    return type.kind === 'image' || type.kind === 'sound' || type.kind === 'video' || type.kind === 'file' || type.kind === 'secret-image' ? type.accept : ['*/*'];
  }

  get #maxBytes(): number {
    const type = this.vccType;
    return type.kind === 'image' || type.kind === 'sound' || type.kind === 'video' || type.kind === 'file' || type.kind === 'secret-image'
      ? type.maxBytes
      : DEFAULT_MAX_UPLOAD_BYTES;
  }

  override render(): TemplateResult {
    const stored = typeof this.value === 'string' ? this.value : '';
    const uploading = this.progress !== null;
    return html`<div class="field" role="group" aria-labelledby="label">
      <span class="label" id="label">${this.name}</span>
      <div
        class="drop"
        @dragenter=${this.#onDragEnter}
        @dragover=${this.#onDragOver}
        @dragleave=${this.#onDragLeave}
        @drop=${this.#onDrop}
      >
        <div class="row">
          <button
            id="choose"
            type="button"
            ?disabled=${this.disabled || uploading}
            aria-describedby=${`${this.describedBy} hint`}
            @click=${this.#choose}
          >
            ${stored ? 'Replace' : 'Choose'} ${this.kind === 'sound' ? 'sound' : this.kind}…
          </button>
          ${stored && !uploading ? html`<button id="remove" type="button" class="secondary" ?disabled=${this.disabled} @click=${this.#remove}>Remove</button>` : nothing}
          ${uploading ? html`<button id="cancel" type="button" class="secondary" @click=${this.#cancel}>Cancel</button>` : nothing}
        </div>
        <span class="description" id="hint">or drop a file here (${this.#accept.join(', ')}, up to ${formatBytes(this.#maxBytes)})</span>
        <input id="file" type="file" hidden accept=${this.#accept.join(',')} @change=${this.#onFileInput} />
        ${uploading ? html`<progress id="progress" max="1" .value=${this.progress ?? 0} aria-label=${`Uploading ${this.name}`}></progress>` : nothing}
        <div class="preview">
          ${
            this.keepsSecret && !this.localPreview
              ? html`<p class="description" id="preview" role="status">${stored ? `Stored as ${stored}` : 'No image stored'}</p>`
              : this.#renderPreview(this.localPreview ?? stored)
          }
        </div>
      </div>
      ${this.renderNotes()}
    </div>`;
  }

  #renderPreview(url: string): TemplateResult | typeof nothing {
    if (!url) return nothing;
    // Never link to or load a URL that is not http(s), a path or this control's own object URL (a
    // `javascript:` default would run in the host's origin when clicked): the session replaces such
    // defaults, and this holds for any value that reaches the control another way.
    if (url !== this.localPreview && !isSafeMediaUrl(url)) {
      return html`<p class="description" id="preview" role="status">Not shown: not an http(s) URL or a path</p>`;
    }
    switch (this.kind) {
      case 'image':
        return html`<img id="preview" src=${url} alt=${`${this.name} preview`} />`;
      case 'video':
        return html`<video id="preview" src=${url} controls muted aria-label=${`${this.name} preview`} @loadedmetadata=${this.#onMetadata} @emptied=${this.#onEmptied}></video>${this.#renderDuration()}`;
      case 'sound':
        return html`<audio id="preview" src=${url} controls aria-label=${`${this.name} preview`} @loadedmetadata=${this.#onMetadata} @emptied=${this.#onEmptied}></audio>${this.#renderDuration()}`;
      case 'file':
        return html`<a id="preview" href=${url} target="_blank" rel="noopener noreferrer">${fileName(url)}</a>`;
      default:
        return unreachable(this.kind, 'media kind');
    }
  }

  // The browser's own controls round a clip under a second down to "0:00 / 0:00": its length is
  // said here too, in tenths of a second while it is short.
  #renderDuration(): TemplateResult | typeof nothing {
    return this.durationS === null ? nothing : html`<span class="description" id="duration">${formatDuration(this.durationS)}</span>`;
  }

  readonly #onMetadata = (event: Event): void => {
    const seconds = (event.target as HTMLMediaElement).duration;
    this.durationS = Number.isFinite(seconds) && seconds > 0 ? seconds : null;
  };

  readonly #onEmptied = (): void => {
    this.durationS = null;
  };

  readonly #choose = (): void => {
    this.renderRoot.querySelector<HTMLInputElement>('#file')?.click();
  };

  readonly #remove = (): void => {
    this.commitValue('');
  };

  readonly #cancel = (): void => {
    this.#abort?.abort();
  };

  override connectedCallback(): void {
    super.connectedCallback();
    this.addEventListener('keydown', this.#onKeydown);
  }

  readonly #onKeydown = (event: KeyboardEvent): void => {
    // Escape cancels an upload in flight first; without one it is left to the overlay (which closes).
    if (event.key === 'Escape' && this.#abort) {
      event.stopPropagation();
      this.#abort.abort();
    }
  };

  readonly #onFileInput = (event: Event): void => {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (file) void this.uploadFile(file);
  };

  readonly #onDragEnter = (event: DragEvent): void => {
    event.preventDefault();
    this.#dragDepth++;
    this.renderRoot.querySelector('.drop')?.classList.add('over');
  };

  readonly #onDragOver = (event: DragEvent): void => {
    // Without preventDefault the browser would open the dropped file instead.
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
  };

  readonly #onDragLeave = (): void => {
    this.#dragDepth = Math.max(0, this.#dragDepth - 1);
    if (this.#dragDepth === 0) this.renderRoot.querySelector('.drop')?.classList.remove('over');
  };

  readonly #onDrop = (event: DragEvent): void => {
    event.preventDefault();
    this.#dragDepth = 0;
    this.renderRoot.querySelector('.drop')?.classList.remove('over');
    const file = event.dataTransfer?.files[0];
    if (file) void this.uploadFile(file);
  };

  /**
   * Checks `file` (type against the VCC's accept list, size against its
   * maxBytes) and uploads it. Resolves true when its URL was stored. A file
   * that fails a check is never handed to the upload function.
   */
  async uploadFile(file: File): Promise<boolean> {
    if (this.disabled || this.#abort) return false;
    if (!fileMatchesAccept(file.type, file.name, this.#accept)) {
      this.refuse(new PlatformError('INVALID_VALUE', `${file.name} is ${file.type || 'of an unknown type'}; ${this.name} takes ${this.#accept.join(', ')}`));
      return false;
    }
    if (file.size > this.#maxBytes) {
      this.refuse(new PlatformError('VALUE_TOO_LARGE', `${file.name} is ${formatBytes(file.size)}; ${this.name} takes up to ${formatBytes(this.#maxBytes)}`));
      return false;
    }
    const upload = this.services.upload;
    if (!upload) {
      this.refuse(new PlatformError('UNSUPPORTED', 'this editor was given no upload function'));
      return false;
    }
    const storeSecret = this.services.storeSecret;
    if (this.keepsSecret && !storeSecret) {
      this.refuse(new PlatformError('UNSUPPORTED', 'this editor was given no keystore function'));
      return false;
    }
    const abort = new AbortController();
    this.#abort = abort;
    this.error = '';
    this.progress = 0;
    this.#endPreview();
    this.localPreview = URL.createObjectURL(file);
    try {
      const url = await upload(file, {
        path: this.path,
        signal: abort.signal,
        onProgress: (fraction) => {
          if (this.#abort === abort && Number.isFinite(fraction)) this.progress = Math.min(1, Math.max(0, fraction));
        },
      });
      if (abort.signal.aborted) throw new PlatformError('INVALID_ARGUMENT', 'the upload was cancelled');
      if (typeof url !== 'string') throw new PlatformError('INVALID_VALUE', 'the upload function resolved without a URL');
      if (!this.keepsSecret || !storeSecret) return this.commitValue(url);
      // secret<image>: the image's URL is the secret; the remix keeps only its key path.
      const keyPath = await storeSecret(url, { path: this.path });
      if (typeof keyPath !== 'string' || !keyPath.startsWith(KEYSTORE_SCHEME)) {
        throw new PlatformError('INVALID_VALUE', `the keystore answered without a key path (${KEYSTORE_SCHEME}…)`);
      }
      return this.commitValue(keyPath);
    } catch (error) {
      this.refuse(
        error instanceof PlatformError ? error : new PlatformError('INTERNAL', `the upload of ${file.name} failed: ${error instanceof Error ? error.message : String(error)}`),
      );
      return false;
    } finally {
      this.#abort = null;
      this.progress = null;
      this.#endPreview();
    }
  }

  #endPreview(): void {
    if (this.localPreview) URL.revokeObjectURL(this.localPreview);
    this.localPreview = null;
  }
}

/** Edits an `image` VCC. */
export class ImageControl extends MediaControl {
  protected readonly kind = 'image';
}
/** Edits a `sound` VCC. */
export class SoundControl extends MediaControl {
  protected readonly kind = 'sound';
}
/** Edits a `video` VCC. */
export class VideoControl extends MediaControl {
  protected readonly kind = 'video';
}
/** Edits a `file` VCC. */
export class FileControl extends MediaControl {
  protected readonly kind = 'file';
}
/** Edits a `secret<image>` VCC: uploads the image, stores its URL in the keystore, keeps the key path. */
export class SecretImageControl extends MediaControl {
  protected readonly kind = 'image';
  protected override readonly keepsSecret = true;
}

/**
 * A size as browsers and file managers print it, in decimal units: 4,000,000
 * bytes is "4 MB" (not "3.8 MB", which is what dividing by 1,048,576 and
 * calling it MB would say).
 */
function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1).replace(/\.0$/, '')} MB`;
  if (bytes >= 1_000) return `${(bytes / 1_000).toFixed(1).replace(/\.0$/, '')} kB`;
  return `${bytes} bytes`;
}

function fileName(url: string): string {
  try {
    return decodeURIComponent(new URL(url, location.href).pathname.split('/').pop() || url);
  } catch {
    return url;
  }
}

/** A clip's length as people read it: "0.5 s" under ten seconds, else "1:05". */
export function formatDuration(seconds: number): string {
  if (seconds < 10) return `${(Math.round(seconds * 10) / 10).toFixed(1)} s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
