// The fault suite's checker (cluster-faults.test.ts), in the manner of Jepsen's:
// the harness only records what it saw (samples of Redis and of every node's
// `info`, every client's frames, every event sent and received) and this
// module decides, from that history alone, which invariants held. Each
// violation names its shard, its sizes, its clients and when (ms since the
// scenario began), so a red run says what broke without a rerun.

/** One look at the shards from one side: Redis itself, or a node's `info`. */
export interface ShardSample {
  /** ms since the scenario began. */
  readonly atMs: number;
  /** `redis` or `info <node>`. */
  readonly source: string;
  /** Shard → members as that side counts them (Redis: `{P}:size`; info: numConnectedClients). */
  readonly sizes: ReadonlyMap<string, number>;
  /** Redis only: shard → the client ids under `{P}:m:<shard>` (online or within grace). */
  readonly members?: ReadonlyMap<string, readonly string[]>;
}

/** A presence list a client held longer than the capacity (recorded as it happened, from its frames). */
export interface ListObservation {
  readonly atMs: number;
  readonly client: string;
  readonly shardName: string;
  readonly length: number;
  /** `joined` (the members of the join answer) or `presence` (the list after a presence frame). */
  readonly from: 'joined' | 'presence';
}

/** What one client did and saw over a scenario. */
export interface ClientHistory {
  /** A label that stays with the client across reconnections (its home node and number). */
  readonly name: string;
  /** Every `joined` answer, in order: the client id and shard it was given. */
  readonly joins: readonly { readonly atMs: number; readonly clientId: string; readonly shardName: string; readonly resumed: boolean }[];
  /** Times its control socket closed (by the server, or dropped). */
  readonly drops: readonly number[];
  /** The events it emitted: its number `k`, when emitEvent was called, and the client id it had then. */
  readonly sent: readonly { readonly k: number; readonly atMs: number; readonly clientId: string }[];
  /** Numbers `k` of its events that the server answered with an `error` frame (the sender was told). */
  readonly told: ReadonlySet<number>;
  /** Every `event` frame it received: the sender's client id and the number `k` (wire level: duplicates show). */
  readonly received: readonly { readonly from: string; readonly k: number }[];
  /** Its presence list at the end: client ids (itself included). */
  readonly finalList: readonly string[];
  /** Connected at the end (socket open and joined). */
  readonly connected: boolean;
}

/** One invariant's verdict. */
export interface Verdict {
  readonly invariant: string;
  /** Precise messages, one per violation (empty: it held). */
  readonly violations: readonly string[];
  /** What was checked, to tell "held" from "had nothing to check". */
  readonly checked: string;
}

const at = (ms: number): string => `+${Math.round(ms)} ms`;

/** No shard over `capacity` in any sample of `source` kind (`redis` or `info`). */
export function capacityInSamples(samples: readonly ShardSample[], capacity: number, kind: 'redis' | 'info'): Verdict {
  const violations: string[] = [];
  let looks = 0;
  // One message per shard and source (its first and worst sample), not one per 150 ms tick.
  const worst = new Map<string, { first: number; max: number; atMax: number; count: number; members: number | undefined }>();
  for (const sample of samples) {
    if (!sample.source.startsWith(kind)) continue;
    looks++;
    for (const [shard, size] of sample.sizes) {
      const listed = sample.members?.get(shard)?.length;
      const over = Math.max(size, listed ?? 0);
      if (over <= capacity) continue;
      const key = `${sample.source}\u0000${shard}`;
      const seen = worst.get(key);
      if (!seen) worst.set(key, { first: sample.atMs, max: over, atMax: sample.atMs, count: 1, members: listed });
      else {
        seen.count++;
        if (over > seen.max) Object.assign(seen, { max: over, atMax: sample.atMs, members: listed });
      }
    }
  }
  for (const [key, seen] of worst) {
    const [source, shard] = key.split('\u0000');
    const listed = seen.members === undefined ? '' : ` (${seen.members} member records)`;
    violations.push(`${source}: shard ${shard} over capacity ${capacity}: ${seen.max}${listed} at ${at(seen.atMax)}, first over at ${at(seen.first)}, in ${seen.count} samples`);
  }
  return { invariant: `no shard over capacity in ${kind === 'redis' ? 'Redis' : "every node's info"}`, violations, checked: `${looks} samples` };
}

/** No client ever held a presence list (or a `joined` member list) longer than `capacity`. */
export function capacityInClients(observations: readonly ListObservation[], clients: number, capacity: number): Verdict {
  const byClient = new Map<string, ListObservation>();
  for (const item of observations) {
    if (item.length <= capacity) continue;
    const seen = byClient.get(item.client);
    if (!seen || item.length > seen.length) byClient.set(item.client, item);
  }
  const violations = [...byClient.values()].map(
    (item) => `client ${item.client} held ${item.length} members of shard ${item.shardName} (capacity ${capacity}) from a ${item.from} frame at ${at(item.atMs)}`,
  );
  return { invariant: "no shard over capacity in any client's frames", violations, checked: `${clients} clients` };
}

/** No client id under two shards' member records in one Redis sample. */
export function oneShardPerMember(samples: readonly ShardSample[]): Verdict {
  const violations = new Map<string, string>();
  let looks = 0;
  for (const sample of samples) {
    if (!sample.members) continue;
    looks++;
    const where = new Map<string, string[]>();
    for (const [shard, ids] of sample.members) for (const id of ids) where.set(id, [...(where.get(id) ?? []), shard]);
    for (const [id, shards] of where) {
      if (shards.length > 1 && !violations.has(id))
        violations.set(id, `client ${id} is a member of ${shards.length} shards at once (${shards.sort().join(', ')}) in Redis at ${at(sample.atMs)}`);
    }
  }
  return { invariant: 'no member on two shards', violations: [...violations.values()], checked: `${looks} Redis samples` };
}

/**
 * Presence converged: every client connected at the end holds exactly the
 * online members of its shard as Redis has them (`online` shard → ids).
 */
export function presenceConverged(clients: readonly ClientHistory[], online: ReadonlyMap<string, readonly string[]>): Verdict {
  const violations: string[] = [];
  let checked = 0;
  // Who each id is and when it joined: a list that misses members who joined just after its owner is the join-snapshot gap.
  const who = new Map<string, string>();
  for (const client of clients) for (const join of client.joins) who.set(join.clientId, `${client.name} ${join.resumed ? 'resumed' : 'joined'} ${at(join.atMs)}`);
  const named = (ids: readonly string[]): string =>
    ids
      .slice(0, 5)
      .map((id) => `${id}: ${who.get(id) ?? 'not a client (a probe)'}`)
      .join('; ') + (ids.length > 5 ? '; …' : '');
  for (const client of clients) {
    if (!client.connected) continue;
    const last = client.joins.at(-1);
    if (!last) continue;
    checked++;
    const truth = new Set(online.get(last.shardName) ?? []);
    const list = new Set(client.finalList);
    const missing = [...truth].filter((id) => !list.has(id));
    const extra = [...list].filter((id) => !truth.has(id));
    if (missing.length === 0 && extra.length === 0) continue;
    const parts = [
      missing.length > 0 ? `misses ${missing.length} (${named(missing)})` : '',
      extra.length > 0 ? `lists ${extra.length} that Redis does not have online (${named(extra)})` : '',
    ].filter(Boolean);
    violations.push(
      `client ${client.name} (${last.clientId}, ${last.resumed ? 'resumed' : 'joined'} ${at(last.atMs)}) in shard ${last.shardName}: holds ${list.size}, Redis has ${truth.size} online; it ${parts.join(' and ')}`,
    );
  }
  return { invariant: 'presence converged', violations, checked: `${checked} connected clients` };
}

/**
 * Events, exactly once among members that stayed connected. A client stayed
 * when it joined once and its socket never closed; for two such clients S and
 * R of one shard, R must receive exactly once each event S emitted after R's
 * `joined` arrived (R's node was subscribed to the shard by then, so the
 * event's publish came after R was a member). An event emitted earlier may
 * or may not reach R; it must never reach it twice. An event whose sender was
 * answered with an `error` frame (told it was not delivered) may be missing,
 * never doubled.
 */
export function eventsExactlyOnce(clients: readonly ClientHistory[]): Verdict & { readonly told: number; readonly expected: number } {
  const stayers = clients.filter((client) => client.joins.length === 1 && client.drops.length === 0 && client.connected);
  const violations: string[] = [];
  let expected = 0;
  let told = 0;
  for (const receiver of stayers) {
    const joined = receiver.joins[0]!;
    const counts = new Map<string, number>();
    for (const item of receiver.received) counts.set(`${item.from}#${item.k}`, (counts.get(`${item.from}#${item.k}`) ?? 0) + 1);
    for (const sender of stayers) {
      if (sender === receiver || sender.joins[0]!.shardName !== joined.shardName) continue;
      const from = sender.joins[0]!.clientId;
      const lost: number[] = [];
      const doubled: string[] = [];
      for (const event of sender.sent) {
        const got = counts.get(`${from}#${event.k}`) ?? 0;
        if (got > 1) doubled.push(`${event.k}×${got}`);
        if (event.atMs <= joined.atMs) continue;
        expected++;
        if (got === 0) {
          if (sender.told.has(event.k)) told++;
          else lost.push(event.k);
        }
      }
      if (lost.length > 0)
        violations.push(`${receiver.name} (${joined.clientId}) in shard ${joined.shardName} lost ${lost.length} events of ${sender.name} (${from}): k = ${summarize(lost)}`);
      if (doubled.length > 0)
        violations.push(
          `${receiver.name} (${joined.clientId}) in shard ${joined.shardName} got events of ${sender.name} (${from}) more than once: ${doubled.slice(0, 8).join(', ')}`,
        );
    }
  }
  return {
    invariant: 'no event lost or duplicated among members that stayed connected',
    violations,
    checked: `${stayers.length} clients stayed connected, ${expected} deliveries expected`,
    told,
    expected,
  };
}

/** 1-4, 7, 9-10 for a list of numbers. */
function summarize(numbers: readonly number[]): string {
  const sorted = [...numbers].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    runs.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return runs.length > 12 ? `${runs.slice(0, 12).join(', ')}, …` : runs.join(', ');
}

/** The failed verdicts as one message (at most `perInvariant` lines each, with the count of the rest). */
export function report(verdicts: readonly Verdict[], perInvariant = 8): string {
  const lines: string[] = [];
  for (const verdict of verdicts) {
    if (verdict.violations.length === 0) continue;
    lines.push(`✗ ${verdict.invariant} (${verdict.violations.length} violations; checked ${verdict.checked}):`);
    for (const line of verdict.violations.slice(0, perInvariant)) lines.push(`    ${line}`);
    if (verdict.violations.length > perInvariant) lines.push(`    … and ${verdict.violations.length - perInvariant} more`);
  }
  return lines.join('\n');
}

/** One line per verdict, held or not (the test log keeps what was checked). */
export function summary(verdicts: readonly Verdict[]): string {
  return verdicts
    .map(
      (verdict) =>
        `${verdict.violations.length === 0 ? '✓' : '✗'} ${verdict.invariant} (${verdict.checked}${verdict.violations.length ? `; ${verdict.violations.length} violations` : ''})`,
    )
    .join('\n');
}
