/**
 * The attributes and properties of `<platform-editor>`, their types and
 * defaults, and what they tell the session: the element's public
 * configuration, apart from what it does with it (platform-editor.ts).
 */
import { LitElement, type PropertyDeclarations } from 'lit';
import type { EditorAttributes, ValueOverrides } from '../../protocol/link.js';
import type { GetIdentityToken } from '../identity.js';
import type { StoreSecretFunction, UploadFunction } from './controls/control-base.js';
import { DEFAULT_PANEL_OPEN_FIELDS } from './panel-scopes.js';
import type { SessionConfig } from './session-controller.js';

/** The configuration of `<platform-editor>`. See the module comment. */
export abstract class EditorProperties extends LitElement {
  static override properties: PropertyDeclarations = {
    src: { type: String },
    type: { type: String, reflect: true },
    mode: { type: String, reflect: true },
    projectId: { type: String, attribute: 'project-id' },
    templateProjectId: { type: String, attribute: 'template-project-id' },
    remixId: { type: String, attribute: 'remix-id' },
    noDrafts: { type: Boolean, attribute: 'no-drafts' },
    draftDelayMs: { type: Number, attribute: 'draft-delay-ms' },
    templateTitle: { type: String, attribute: 'template-title' },
    values: { attribute: false },
    allowedOrigins: { attribute: false },
    upload: { attribute: false },
    storeSecret: { attribute: false },
    getIdentityToken: { attribute: false },
    layout: { type: String },
    compactBelow: { type: Number, attribute: 'compact-below' },
    panelOpenFields: { type: Number, attribute: 'panel-open-fields' },
  };

  /** URL of the template (another origin). */
  declare src: string;
  /** `instant`: remixing in place; `full`: adds the side panel of every VCC. */
  declare type: EditorAttributes['type'];
  /** `new`: a new remix; `edit`: editing an existing one. */
  declare mode: EditorAttributes['mode'];
  /** The project being remixed: with remixId, names the draft. */
  declare projectId: string;
  /**
   * The platform project told to the template (TemplateFrameOptions.projectId): its
   * Platform.dispatch joins it when the template was built without one. '' (the default): none.
   */
  declare templateProjectId: string;
  /** The remix: with projectId, names the draft. */
  declare remixId: string;
  /** Turns drafts off. */
  declare noDrafts: boolean;
  /** Longest wait between an edit and its draft save, in ms (at most 500). */
  declare draftDelayMs: number;
  /** Accessible title of the template's iframe. */
  declare templateTitle: string;
  /** Values the remix starts with (an existing remix in `edit` mode); a draft is restored over them. */
  declare values: ValueOverrides;
  /** More origins the template may answer from (a CDN it redirects to). */
  declare allowedOrigins: readonly string[];
  /** The host's upload function for image, sound, video and file VCCs. */
  declare upload: UploadFunction | undefined;
  /** The host's keystore function for secret VCCs. */
  declare storeSecret: StoreSecretFunction | undefined;
  /**
   * Answers the template's `Platform.identity.getToken()`, typically
   * `createIdentityHandler({ fetchToken })` (host/identity.ts): the host's
   * backend vouches for its user. Null (the default): the template hears
   * UNSUPPORTED. The same property as `<platform-feed>`'s.
   */
  declare getIdentityToken: GetIdentityToken | null;
  /** `auto` (the default): compact below `compactBelow`; `wide` or `compact`: always that layout. */
  declare layout: 'auto' | 'wide' | 'compact';
  /** Narrowest width of the element (CSS px) laid out wide. Default 720. */
  declare compactBelow: number;
  /**
   * How many fields the side panel shows open when a template loads: its scopes open in order
   * while their fields add up to at most this many (the first always opens); the others start
   * closed, and a closed scope's controls are made only when it is opened. Default 100.
   * `Infinity` opens every scope, as the panel did before it had closed scopes: a customization
   * of hundreds of fields then takes a long task to draw.
   */
  declare panelOpenFields: number;

  constructor() {
    super();
    this.src = '';
    this.type = 'instant';
    this.mode = 'new';
    this.projectId = '';
    this.templateProjectId = '';
    this.remixId = '';
    this.noDrafts = false;
    this.draftDelayMs = 200;
    this.templateTitle = 'Template';
    this.values = {};
    this.allowedOrigins = [];
    this.upload = undefined;
    this.storeSecret = undefined;
    this.getIdentityToken = null;
    this.layout = 'auto';
    this.compactBelow = 720;
    this.panelOpenFields = DEFAULT_PANEL_OPEN_FIELDS;
  }

  /** What the session controller starts a template with. */
  protected sessionConfig(): SessionConfig {
    return {
      src: this.src,
      projectId: this.projectId,
      templateProjectId: this.templateProjectId,
      remixId: this.remixId,
      editorAttributes: this.editorAttributes(),
      values: this.values,
      allowedOrigins: this.allowedOrigins,
      drafts: !this.noDrafts,
      draftDelayMs: this.draftDelayMs,
      title: this.templateTitle,
      getIdentityToken: this.getIdentityToken,
    };
  }

  /** The `type` and `mode` the template is told, each one of its known values. */
  protected editorAttributes(): EditorAttributes {
    return { type: this.type === 'full' ? 'full' : 'instant', mode: this.mode === 'edit' ? 'edit' : 'new' };
  }
}
