/**
 * The editor's link to its template: a ReactiveController that owns the
 * RemixSession, the TemplateFrame, the draft saver and every subscription,
 * and releases them when the element leaves the page (STYLE.md 7).
 *
 * Lifetimes:
 *   - The session lives as long as the remix does (same src, project and
 *     remix): moving the element in the page keeps its values, and the new
 *     frame is re-sent the state when it links.
 *   - The frame and the subscriptions live while the element is connected.
 *   - A draft is loaded when the session is made and restored once the
 *     template has described its VCCs, because only then can each value be
 *     checked against its type. A value that does not fit is refused and
 *     reported; the good ones are restored.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { PREDEFINED_SCOPES, type BuiltCustomization } from '../../protocol/customization.js';
import { PlatformError, withoutPrefix } from '../../protocol/errors.js';
import type { EditorAttributes, ValueOverrides } from '../../protocol/link.js';
import type { GetIdentityToken } from '../identity.js';
import { RemixSession, type RemixSessionEvents } from '../remix-session.js';
import { TemplateFrame, type HostHandlers } from '../template-frame.js';
import { DraftSaver, loadDraft, type Draft } from './drafts.js';

/** What the controller needs to know about the editor, read at every update. */
export interface SessionConfig {
  readonly src: string;
  readonly projectId: string;
  /** Told to the template at the link ('' for none). */
  readonly templateProjectId: string;
  readonly remixId: string;
  readonly editorAttributes: EditorAttributes;
  /** Values the remix starts with (an existing remix in `edit` mode), before any draft. */
  readonly values: ValueOverrides;
  readonly allowedOrigins: readonly string[];
  /** False turns drafts off; they are also off without a projectId and a remixId. */
  readonly drafts: boolean;
  readonly draftDelayMs: number;
  readonly title: string;
  /** Answers the template's Platform.identity.getToken(); null: the template hears UNSUPPORTED. */
  readonly getIdentityToken: GetIdentityToken | null;
}

/** A value the draft held that was not restored. */
export interface RefusedDraftValue {
  readonly path: readonly string[];
  readonly error: PlatformError;
}

/** Outcome of the start of a session: what the draft gave. */
export interface SessionStart {
  /** The draft found for this remix, if any. */
  readonly draft: Draft | undefined;
  /** Values restored from it. */
  readonly restored: number;
  /** Values refused (wrong type, predefined scope). */
  readonly refused: readonly RefusedDraftValue[];
}

/** Where the controller sends what happens; the editor element implements it. */
export interface SessionHandlers {
  /** A new session was made (a new remix): forget per-remix UI state. */
  sessionChanged(session: RemixSession): void;
  sessionEvent<Name extends keyof RemixSessionEvents & string>(name: Name, payload: RemixSessionEvents[Name]): void;
  /** The customization is known and the draft restored: the editor is usable. */
  started(start: SessionStart): void;
  /** Something failed that the user should hear about. */
  failed(error: PlatformError, path?: readonly string[]): void;
}

const FORWARDED_EVENTS = ['valuechange', 'presentcontrol', 'pointer', 'activepathchange', 'remixingchange', 'finish', 'customization', 'refusedvalue', 'error'] as const;

/** Owns the session, frame, drafts and subscriptions of one `<platform-editor>`. */
export class EditorSessionController implements ReactiveController {
  readonly #host: ReactiveControllerHost & HTMLElement;
  readonly #config: () => SessionConfig;
  readonly #container: () => HTMLElement | null;
  readonly #handlers: SessionHandlers;
  #session: RemixSession | null = null;
  #sessionKey = '';
  #frame: TemplateFrame | null = null;
  /** The identity function the frame's handlers were made with. */
  #identity: GetIdentityToken | null = null;
  #saver: DraftSaver | null = null;
  #releases: (() => void)[] = [];
  #connected = false;
  #started: Promise<SessionStart> | null = null;
  /** Edits are saved only after the draft was restored: an earlier save would overwrite it. */
  #restoring = false;

  constructor(host: ReactiveControllerHost & HTMLElement, options: { config: () => SessionConfig; container: () => HTMLElement | null; handlers: SessionHandlers }) {
    this.#host = host;
    this.#config = options.config;
    this.#container = options.container;
    this.#handlers = options.handlers;
    host.addController(this);
  }

  /** The current session (null before the first update with a src). */
  get session(): RemixSession | null {
    return this.#session;
  }

  /** The current frame (null while disconnected). */
  get frame(): TemplateFrame | null {
    return this.#frame;
  }

  /** Resolves when the customization is known and the draft restored. */
  whenStarted(): Promise<SessionStart> {
    return this.#started ?? Promise.reject(new PlatformError('LINK_CLOSED', 'the editor has no template (set src)'));
  }

  /** Writes any pending draft now. */
  flushDraft(): Promise<void> {
    return this.#saver?.flush() ?? Promise.resolve();
  }

  /** Drops pending saves (before the draft is discarded). */
  cancelDraft(): void {
    this.#saver?.cancel();
  }

  hostConnected(): void {
    this.#connected = true;
    // The frame needs the rendered container: it is made in hostUpdated.
    this.#host.requestUpdate();
  }

  hostUpdate(): void {
    // Before render: the render that follows already shows the new session.
    const config = this.#config();
    const key = JSON.stringify([config.src, config.projectId, config.templateProjectId, config.remixId]);
    if (key === this.#sessionKey) return;
    this.#stopFrame();
    this.#stopSession();
    this.#sessionKey = key;
    if (config.src) this.#startSession(config);
  }

  hostUpdated(): void {
    const config = this.#config();
    if (this.#connected && this.#session && !this.#frame && config.src) {
      const container = this.#container();
      if (container) this.#startFrame(config, this.#session, container);
    } else if (this.#frame && config.getIdentityToken !== this.#identity) {
      // A new function applies to the next call of the linked template; no reload.
      this.#frame.setHandlers(this.#baseHandlers(config));
    }
  }

  hostDisconnected(): void {
    this.#connected = false;
    this.#stopFrame();
    // Saved now: a removed editor may be about to be garbage collected with the page.
    void this.#saver?.flush();
  }

  #startSession(config: SessionConfig): void {
    const session = new RemixSession({ editorAttributes: config.editorAttributes, values: config.values });
    this.#session = session;
    this.#handlers.sessionChanged(session);
    const draftsOn = config.drafts && config.projectId !== '' && config.remixId !== '';
    if (draftsOn) {
      this.#saver = new DraftSaver({
        projectId: config.projectId,
        remixId: config.remixId,
        delayMs: config.draftDelayMs,
        onError: (error) => this.#handlers.failed(error),
      });
    }
    this.#restoring = true;
    const draft = draftsOn
      ? loadDraft(config.projectId, config.remixId).catch((error: unknown) => {
          this.#handlers.failed(error instanceof PlatformError ? error : new PlatformError('INTERNAL', `the draft could not be read: ${String(error)}`));
          return undefined;
        })
      : Promise.resolve(undefined);
    const customization = new Promise<BuiltCustomization>((resolve) => {
      if (session.customization) resolve(session.customization);
      else {
        const off = session.on('customization', (described) => {
          off();
          resolve(described);
        });
      }
    });
    const started = Promise.all([draft, customization]).then(([loaded]) => {
      if (this.#session !== session) throw new PlatformError('LINK_CLOSED', 'the editor moved on to another remix');
      const start = this.#restore(session, loaded);
      this.#restoring = false;
      this.#handlers.started(start);
      return start;
    });
    started.catch(() => undefined);
    this.#started = started;
  }

  /** Puts the draft's values into the session, each checked against its VCC type by the session. */
  #restore(session: RemixSession, draft: Draft | undefined): SessionStart {
    const refused: RefusedDraftValue[] = [];
    let restored = 0;
    for (const [scope, entries] of Object.entries(draft?.values ?? {})) {
      for (const [key, value] of Object.entries(entries)) {
        const path = [scope, key];
        try {
          // A stored draft is not trusted to change what the platform fills in (a service URL, say).
          if (PREDEFINED_SCOPES.has(scope)) throw new PlatformError('INVALID_PATH', `["${scope}", …] is predefined; a draft cannot set it`);
          session.setValue(path, value);
          restored++;
        } catch (error) {
          const coded = error instanceof PlatformError ? error : new PlatformError('INVALID_VALUE', String(error));
          const reported = new PlatformError(coded.code, `the draft's value of ${scope}.${key} was not restored: ${withoutPrefix(coded.message)}`);
          refused.push({ path, error: reported });
          this.#handlers.failed(reported, path);
        }
      }
    }
    // What is stored now is what was restored: refused values are not written back.
    if (refused.length > 0) this.#saver?.schedule(session.overrides);
    return { draft, restored, refused };
  }

  #startFrame(config: SessionConfig, session: RemixSession, container: HTMLElement): void {
    const frame = new TemplateFrame({
      src: config.src,
      container,
      allowedOrigins: config.allowedOrigins,
      ...(config.templateProjectId === '' ? {} : { projectId: config.templateProjectId }),
      title: config.title,
      handlers: this.#baseHandlers(config),
    });
    this.#frame = frame;
    this.#releases.push(session.attach(frame));
    for (const name of FORWARDED_EVENTS) {
      this.#releases.push(session.on(name, (payload) => this.#handlers.sessionEvent(name, payload as never)));
    }
    this.#releases.push(
      session.on('valuechange', () => {
        if (!this.#restoring) this.#saver?.schedule(session.overrides);
      }),
    );
    this.#releases.push(frame.on('error', (error) => this.#handlers.failed(error)));
  }

  /** The frame's own handlers, under the session's remix calls: the host's identity. */
  #baseHandlers(config: SessionConfig): HostHandlers {
    const getIdentityToken = config.getIdentityToken;
    this.#identity = getIdentityToken;
    return getIdentityToken ? { getIdentityToken: () => getIdentityToken() } : {};
  }

  #stopFrame(): void {
    for (const release of this.#releases.splice(0)) release();
    this.#frame?.destroy();
    this.#frame = null;
  }

  #stopSession(): void {
    const saver = this.#saver;
    this.#saver = null;
    void saver?.dispose();
    this.#session = null;
    this.#started = null;
  }
}
