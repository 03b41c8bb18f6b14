/**
 * `platform-kit/guest/state`: the shard's shared state, a Yjs document every
 * member reads and changes, that converges whatever the order of changes and
 * that a member joining late holds, whole, when `connect()` resolves. Its own
 * entry: a template that does not import it pays nothing for Yjs.
 *
 * ```ts
 * const score = shardState().map<number>();
 * score.onChange(() => render(score.get('points') ?? 0));
 * score.set('points', (score.get('points') ?? 0) + 1);
 * ```
 */
import { Platform } from '../platform.js';
import { attachShardState, type FrontendOrBackendDispatch, type ShardState } from './shard-state.js';

export type { FrontendOrBackendDispatch, ShardState, StateMap } from './shard-state.js';

/** Attaches to a dispatch (default: Platform.dispatch). One ShardState per dispatch (a second call returns the same). */
export function shardState(dispatch?: FrontendOrBackendDispatch): ShardState {
  return attachShardState(dispatch ?? Platform.dispatch);
}
