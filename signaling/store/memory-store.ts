/**
 * The in-memory {@link ShardStore}: one process, no persistence. Every method
 * runs to completion synchronously before its promise resolves, which makes
 * each one atomic under Node's single thread; the Redis store gets the same
 * guarantee from Lua scripts. A member's saved rate-limit buckets are part of
 * its record (`update({ rateBuckets })`, read back by `member()`), and the
 * per-address join allowance is kept here too, as the Redis store keeps both.
 */
import type { ShardInfo } from '../../protocol/signaling.js';
import { JoinLimiter } from './join-limit.js';
import { createMemoryStateStore } from './memory-state.js';
import type { JoinOutcome, JoinRequest, MemberPatch, MemberRecord, ShardBroadcastListener, ShardBroadcast, ShardStore } from './store.js';

interface Shard {
  readonly name: string;
  /** Set by the client that opened the shard. */
  readonly capacity: number;
  /** Opened by automatic placement (only those receive automatically placed clients). */
  readonly automatic: boolean;
  readonly members: Map<string, MemberRecord>;
  online: number;
}

interface Project {
  readonly shards: Map<string, Shard>;
  /** Automatic shards with room, by capacity, oldest first: placement is O(1). */
  readonly open: Map<number, Set<Shard>>;
}

/** Creates the in-memory store. */
export function createMemoryStore(): ShardStore {
  const projects = new Map<string, Project>();
  const listeners = new Map<string, Set<ShardBroadcastListener>>();
  const joins = new JoinLimiter();
  const state = createMemoryStateStore();
  let memberCount = 0;
  let shardCount = 0;

  const projectOf = (projectId: string): Project => {
    let project = projects.get(projectId);
    if (!project) {
      project = { shards: new Map(), open: new Map() };
      projects.set(projectId, project);
    }
    return project;
  };
  const keyOf = (projectId: string, shardName: string): string => `${projectId}\u0000${shardName}`;

  function markRoom(project: Project, shard: Shard): void {
    if (!shard.automatic) return;
    let set = project.open.get(shard.capacity);
    if (shard.members.size < shard.capacity) {
      if (!set) project.open.set(shard.capacity, (set = new Set()));
      set.add(shard);
    } else if (set) {
      set.delete(shard);
      if (set.size === 0) project.open.delete(shard.capacity);
    }
  }

  function openShard(project: Project, name: string, capacity: number, automatic: boolean): Shard {
    const shard: Shard = { name, capacity, automatic, members: new Map(), online: 0 };
    project.shards.set(name, shard);
    shardCount++;
    return shard;
  }

  function add(project: Project, shard: Shard, member: MemberRecord): JoinOutcome {
    if (shard.members.has(member.clientId)) return { ok: false, reason: 'CLIENT_ID_TAKEN' };
    shard.members.set(member.clientId, member);
    if (member.online) shard.online++;
    memberCount++;
    markRoom(project, shard);
    return { ok: true, shardName: shard.name, opened: shard.members.size === 1 };
  }

  function join(request: JoinRequest): JoinOutcome {
    const project = projectOf(request.projectId);
    const capacity = request.maxConnectionsPerShard;
    if (request.shardName !== undefined) {
      let shard = project.shards.get(request.shardName);
      if (shard) {
        // Each joiner's own capacity, not the first joiner's: nobody can make a named shard full for others (server-options.ts SignalingProject).
        if (shard.members.size >= capacity) return { ok: false, reason: 'SHARD_FULL' };
      } else {
        if (project.shards.size >= request.maxShards) return { ok: false, reason: 'TOO_MANY_SHARDS' };
        shard = openShard(project, request.shardName, capacity, false);
      }
      return add(project, shard, request.member);
    }
    // The oldest automatic shard with room of this capacity: shards fill one after another.
    const candidates = project.open.get(capacity);
    const first = candidates?.values().next();
    if (first && !first.done) return add(project, first.value, request.member);
    if (project.shards.size >= request.maxShards) return { ok: false, reason: 'TOO_MANY_SHARDS' };
    let name = request.newShardName();
    for (let attempt = 0; project.shards.has(name); attempt++) {
      if (attempt > 100) throw new Error('platform-kit: no free shard name after 100 attempts');
      name = request.newShardName();
    }
    return add(project, openShard(project, name, capacity, true), request.member);
  }

  function leave(projectId: string, shardName: string, clientId: string): boolean {
    const project = projects.get(projectId);
    const shard = project?.shards.get(shardName);
    const member = shard?.members.get(clientId);
    if (!project || !shard || !member) return false;
    shard.members.delete(clientId);
    if (member.online) shard.online--;
    memberCount--;
    if (shard.members.size === 0) {
      // Empty shards disappear.
      project.shards.delete(shardName);
      shardCount--;
      // The shard ended (its last member left or its grace ran out): its state and history go with it.
      state.drop(projectId, shardName);
      const set = project.open.get(shard.capacity);
      set?.delete(shard);
      if (set?.size === 0) project.open.delete(shard.capacity);
      if (project.shards.size === 0) projects.delete(projectId);
    } else {
      markRoom(project, shard);
    }
    return true;
  }

  function update(projectId: string, shardName: string, clientId: string, patch: MemberPatch): MemberRecord | null {
    const shard = projects.get(projectId)?.shards.get(shardName);
    const member = shard?.members.get(clientId);
    if (!shard || !member) return null;
    const next: MemberRecord = { ...member, ...patch };
    if (member.online !== next.online) shard.online += next.online ? 1 : -1;
    shard.members.set(clientId, next);
    return next;
  }

  return {
    join: (request) => Promise.resolve(join(request)),
    leave: (projectId, shardName, clientId) => Promise.resolve(leave(projectId, shardName, clientId)),
    update: (projectId, shardName, clientId, patch) => Promise.resolve(update(projectId, shardName, clientId, patch)),
    member: (projectId, shardName, clientId) => Promise.resolve(projects.get(projectId)?.shards.get(shardName)?.members.get(clientId) ?? null),
    members: (projectId, shardName) => Promise.resolve([...(projects.get(projectId)?.shards.get(shardName)?.members.values() ?? [])]),
    shards(projectId) {
      const list: ShardInfo[] = [];
      for (const shard of projects.get(projectId)?.shards.values() ?? []) {
        if (shard.online > 0) list.push({ shardName: shard.name, numConnectedClients: shard.online });
      }
      return Promise.resolve(list);
    },
    state,
    takeJoin: (address, perMinute) => Promise.resolve(joins.take(address, perMinute)),
    publish(projectId, shardName, message: ShardBroadcast) {
      for (const listener of listeners.get(keyOf(projectId, shardName)) ?? []) listener(message);
    },
    subscribe(projectId, shardName, listener) {
      const key = keyOf(projectId, shardName);
      let set = listeners.get(key);
      if (!set) listeners.set(key, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(key) === set) listeners.delete(key);
      };
    },
    stats: () => ({ shards: shardCount, members: memberCount }),
    close() {
      projects.clear();
      listeners.clear();
      memberCount = 0;
      shardCount = 0;
      return Promise.resolve();
    },
  };
}
