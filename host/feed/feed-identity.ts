/** The viewer's identity for a feed's templates (their getIdentityToken, through the door); apart from the controller because whom it is given to, pages of the item's own origin only, is its own rule. */
import { PlatformError } from '../../protocol/errors.js';
import type { GetIdentityToken } from './feed-options.js';
import type { GuestIdentity } from './guest-door.js';
import type { LiveFrame } from './live-frame.js';

/** Answers a template's getIdentityToken() with the feed's getIdentityToken; see the module comment. */
export class FeedIdentity implements GuestIdentity {
  #getIdentityToken: GetIdentityToken | null;
  readonly #itemUrlOf: (live: LiveFrame) => string | undefined;

  /** `itemUrlOf`: the url of the item a live template stands for (the sheet's: the focused item's, as for `allow`). */
  constructor(getIdentityToken: GetIdentityToken | null, itemUrlOf: (live: LiveFrame) => string | undefined) {
    this.#getIdentityToken = getIdentityToken;
    this.#itemUrlOf = itemUrlOf;
  }

  /** Replaces what answers (null: nothing; the templates get `UNSUPPORTED`). */
  set(getIdentityToken: GetIdentityToken | null): void {
    this.#getIdentityToken = getIdentityToken;
  }

  /** A template's getIdentityToken(), through the door: the feed's getIdentityToken, for a page of the item's own origin. */
  getToken(live: LiveFrame): unknown {
    const getToken = this.#getIdentityToken;
    if (!getToken) throw new PlatformError('UNSUPPORTED', 'this feed gives no identity (its getIdentityToken is not set)');
    const itemUrl = this.#itemUrlOf(live);
    if (itemUrl === undefined || new URL(live.src).origin !== new URL(itemUrl).origin) {
      throw new PlatformError('FORBIDDEN', "the viewer's identity is given only to pages of the item's own origin");
    }
    return getToken();
  }
}
