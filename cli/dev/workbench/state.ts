/** What the workbench page reads from its server (dev-api.ts) and shares between its panes. */
import { createIdentityHandler, type FeedItem } from 'platform-kit/host';

/** `GET /__platform/state`. */
export interface WorkbenchState {
  readonly projectId: string;
  /** The feed's own project (the focus check counts its members). */
  readonly feedProjectId: string;
  readonly templateUrl: string;
  readonly neighbourUrl: string;
  readonly remixes: readonly DevRemix[];
  readonly problems: readonly string[];
}

/** A remix published from the workbench (dev-api.ts' DevRemix). */
export interface DevRemix {
  readonly id: string;
  readonly title: string;
  readonly values: NonNullable<FeedItem['values']>;
}

/** The template's URL for one frame of the workbench: `pkdev` names the frame in the probe's reports. */
export function frameUrl(state: WorkbenchState, frame: string, context?: 'remix'): string {
  const url = new URL(state.templateUrl);
  url.searchParams.set('pkdev', frame);
  if (context) url.searchParams.set('context', context);
  return url.href;
}

/** Platform.identity for a frame: player 1 to 4 are their own users, 0 the author. */
export function identityFor(player: number): ReturnType<typeof createIdentityHandler> {
  return createIdentityHandler({
    fetchToken: async () => {
      const response = await fetch('/__platform/identity', { method: 'POST', body: JSON.stringify({ player }) });
      if (!response.ok) throw new Error(`platform-kit dev: no token (${response.status})`);
      // Any JSON: createIdentityHandler checks the answer itself (parseIdentityTokenResult).
      return (await response.json()) as never;
    },
  });
}
