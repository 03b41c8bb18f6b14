/**
 * The demo's templates and fixed development values, shared by the server
 * (Node) and the host pages (browser): nothing here touches either platform.
 */

/** The one project of the demo: every template runs in it. */
export const DEMO_PROJECT_ID = 'demo';
/** Its development token (printed at start; never use a fixed token in production). */
export const DEMO_PROJECT_TOKEN = 'demo-dev-token-change-me';

/** One template of the demo. */
export interface DemoTemplate {
  /** Folder under demo/templates/ and the id the pages use. */
  readonly id: string;
  readonly title: string;
  /** One line for the feed and the README. */
  readonly blurb: string;
}

/** The templates, in feed order. */
export const DEMO_TEMPLATES: readonly DemoTemplate[] = [
  { id: 'greeting', title: 'Greeting card', blurb: 'Text, color, image and sound VCCs' },
  { id: 'sketch', title: 'Sketch party', blurb: 'A shared drawing board: strokes in shard state, cursors as events' },
  { id: 'quiz', title: 'Quick quiz', blurb: 'A quiz for 2 to 8 players; the score is shard state, so late joiners see it' },
  { id: 'radio', title: 'Night radio', blurb: 'Plays only in focus; a horizontal slider keeps its swipes' },
  { id: 'vault', title: 'The vault', blurb: 'A backend route: a keystore secret and a signed media URL' },
];

/** A remix published from the editor: a template and the values set in it. */
export interface PublishedRemix {
  readonly id: string;
  readonly template: string;
  readonly title: string;
  /** The remix's own values (RemixSession.overrides): `{ scope: { key: value } }`. */
  readonly values: { readonly [scope: string]: { readonly [key: string]: unknown } };
  /** The remix it started from, if any. */
  readonly parent: string | null;
  readonly createdAt: number;
}

/** What `GET /demo-api/feed` answers: published remixes (newest first) and the templates. */
export interface DemoFeed {
  readonly remixes: readonly PublishedRemix[];
  readonly templates: readonly DemoTemplate[];
}

/** Remix ids: what the publish API generates and accepts. */
export const REMIX_ID_PATTERN = /^[A-Za-z0-9_-]{6,40}$/;

/** Largest JSON body the publish API accepts. */
export const MAX_PUBLISH_BYTES = 64 * 1024;
