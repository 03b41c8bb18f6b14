// Sketch party: a shared drawing board on Platform.dispatch and its shard state.
//
// - State: the strokes are a Y.Array in the shard's state (platform-kit/guest/state),
//   so a player who joins late holds the whole board when connect() resolves,
//   with no one to ask; clearing the board is a change of the state too.
// - Presence: every player sets its name, color and network report with
//   setUserInfo; onConnectedClientsChanged draws the players list.
// - Events: cursors go to the whole shard (they need no keeping); a wave goes to
//   one player only (targeted emitEvent).
// - Shard info: the shard's name and every room of the project (info()).
// - Latency: each event's metadata.latencyMs, per player, on a server-synced clock.
// - When: at once, wherever it runs, a feed's preloaded neighbour too: until
//   it comes into focus it is away (connected, its peers linked, listed by
//   nobody: ConnectedClient.state), and it is here the moment it plays, with
//   nothing left to join. Scrolled past, it is away again; nobody leaves.
import { InstantRemixing, Platform, isPlatformError, type ConnectedClient, type DispatchMessageMetadata, type EventPayload } from 'platform-kit/guest';
import { shardState } from 'platform-kit/guest/state';
import { joinFeed } from '../shared/feed.js';

const remix = new InstantRemixing();
const dispatch = Platform.dispatch;
// This board draws its own cursor as the pointer moves; its broadcasts coming back to it (the
// default) would show its own cursor as a remote one.
dispatch.configure({ receiveOwnBroadcasts: false });
// Attached before connect(): connect() resolves with the whole board held.
const state = shardState(dispatch);
const $ = <T extends Element>(selector: string): T => document.querySelector<T>(selector)!;
const canvas = $<HTMLCanvasElement>('canvas');
const context = canvas.getContext('2d')!;
const statusLine = $<HTMLElement>('.status');
const playersList = $<HTMLUListElement>('.players');
const toast = $<HTMLElement>('.toast');
const cursors = $<HTMLElement>('.cursors');

const ADJECTIVES = ['Blue', 'Swift', 'Quiet', 'Brave', 'Lucky', 'Sunny', 'Witty', 'Mellow', 'Bold', 'Tiny'];
const ANIMALS = ['Otter', 'Fox', 'Heron', 'Panda', 'Lynx', 'Koala', 'Moth', 'Yak', 'Gecko', 'Wren'];
const COLORS = ['#e03131', '#1971c2', '#2f9e44', '#f08c00', '#9c36b5', '#0c8599', '#d6336c', '#5c940d'];
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
/** A member's user info field as text: another member's JSON may hold anything there. */
const infoText = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);
// A link may ask for a starting color (`?color=%23e03131`, one of COLORS); another player's keeps it (keepColorOwn).
const askedColor = new URLSearchParams(location.search).get('color');
const me = {
  name: `${pick(ADJECTIVES)} ${pick(ANIMALS)} ${Math.floor(10 + Math.random() * 90)}`,
  color: askedColor !== null && COLORS.includes(askedColor) ? askedColor : pick(COLORS),
};

/** A stroke: color, width and points as fractions of the board (0..1), so every screen size agrees. */
interface Stroke {
  readonly c: string;
  readonly w: number;
  readonly p: number[];
}
/** Every stroke on the board, in the shard's state: what a newcomer holds at connect(). */
const strokes = state.doc.getArray<Stroke>('strokes');
/** The board keeps its latest strokes up to this many points (about 100 KB of state): the state's size limit is never near. */
const MAX_BOARD_POINTS = 6_000;

let clients: readonly ConnectedClient[] = [];
const latencyByClient = new Map<string, number>();
const remoteCursors = new Map<string, HTMLElement>();
let sentThisWindow = 0;
let eventsPerSecond = 0;
let reportedNet = '';
let connected = false;
let wanted = false;

// ─── values ──────────────────────────────────────────────────────────────────

const text = (path: [string, string], fallback: string): string => {
  const value = remix.get(path);
  return typeof value === 'string' ? value : fallback;
};
const brushSize = (): number => Number(remix.get(['board', 'brushSize']) ?? 6);

function render(): void {
  $<HTMLElement>('h1').textContent = text(['board', 'title'], 'Sketch party');
  $<HTMLElement>('.prompt').textContent = text(['board', 'prompt'], '');
  document.body.style.setProperty('--paper', text(['board', 'background'], '#fffdf5'));
  document.body.style.setProperty('--accent', text(['board', 'accent'], '#3b5bdb'));
  redraw();
}

// ─── drawing ─────────────────────────────────────────────────────────────────

function resize(): void {
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(canvas.clientWidth * ratio);
  canvas.height = Math.round(canvas.clientHeight * ratio);
  redraw();
}

function drawStroke(stroke: Stroke): void {
  const { width, height } = canvas;
  const ratio = window.devicePixelRatio || 1;
  context.strokeStyle = stroke.c;
  context.lineWidth = stroke.w * ratio;
  context.lineCap = 'round';
  context.lineJoin = 'round';
  context.beginPath();
  for (let i = 0; i + 1 < stroke.p.length; i += 2) {
    const x = stroke.p[i]! * width;
    const y = stroke.p[i + 1]! * height;
    if (i === 0) context.moveTo(x, y);
    else context.lineTo(x, y);
  }
  if (stroke.p.length === 2) context.lineTo(stroke.p[0]! * width + 0.1, stroke.p[1]! * height);
  context.stroke();
}

function redraw(): void {
  context.clearRect(0, 0, canvas.width, canvas.height);
  for (const stroke of strokes) if (parseStroke(stroke)) drawStroke(stroke);
  document.body.dataset['strokes'] = String(strokes.length);
}

/** A stroke's points, or 0 for a value that is no stroke (the state is shared: anything may be in it). */
const pointsOf = (value: unknown): number => (parseStroke(value)?.p.length ?? 0) / 2;

/** Adds this player's stroke to the state and trims the oldest past the board's budget. */
function addStroke(stroke: Stroke): void {
  state.doc.transact(() => {
    strokes.push([stroke]);
    let points = strokes.toArray().reduce((sum, item) => sum + pointsOf(item), 0);
    let oldest = 0;
    while (points > MAX_BOARD_POINTS && oldest < strokes.length - 1) points -= pointsOf(strokes.get(oldest++));
    if (oldest > 0) strokes.delete(0, oldest);
  });
}

// Another player's change (a stroke, a trim, a clear) redraws the board; this player's own
// strokes are drawn as they are added, and only a trim of its own needs the whole board again.
strokes.observe((event) => {
  if (!event.transaction.local || event.changes.deleted.size > 0) redraw();
  else for (const change of event.changes.delta) for (const item of (change.insert ?? []) as unknown[]) if (parseStroke(item)) drawStroke(item as Stroke);
  document.body.dataset['strokes'] = String(strokes.length);
});

let current: { points: number[]; sent: number } | null = null;
let flushTimer = 0;

const toBoard = (event: PointerEvent): [number, number] => {
  const rect = canvas.getBoundingClientRect();
  return [Math.round(((event.clientX - rect.left) / rect.width) * 10_000) / 10_000, Math.round(((event.clientY - rect.top) / rect.height) * 10_000) / 10_000];
};

/** Sends the points drawn since the last flush as one stroke segment (20 per second at most). */
function flush(): void {
  flushTimer = 0;
  if (!current || current.points.length - current.sent < 2) return;
  // Each segment starts at the previous segment's last point, so segments join up.
  const from = Math.max(0, current.sent - 2);
  const segment: Stroke = { c: me.color, w: brushSize(), p: current.points.slice(from) };
  current.sent = current.points.length;
  addStroke(segment);
}

canvas.addEventListener('pointerdown', (event) => {
  canvas.setPointerCapture(event.pointerId);
  current = { points: toBoard(event), sent: 0 };
  flushTimer ||= window.setTimeout(flush, 50);
});
canvas.addEventListener('pointermove', (event) => {
  const [x, y] = toBoard(event);
  sendCursor(x, y);
  if (!current) return;
  current.points.push(x, y);
  flushTimer ||= window.setTimeout(flush, 50);
});
const endStroke = (): void => {
  if (flushTimer) window.clearTimeout(flushTimer);
  flush();
  current = null;
};
canvas.addEventListener('pointerup', endStroke);
canvas.addEventListener('pointercancel', endStroke);
// In the feed a finger on the board draws; it must not swipe. The feed has seen the touchstart
// already (FeedSdk forwards every touch), so the board takes the gesture back at once: the feed
// stops following this finger, whichever way it goes (a stroke down is no swipe to the previous item).
canvas.addEventListener('touchstart', () => void feed.requestCancelTouch(), { passive: true });

let lastCursorAt = 0;
function sendCursor(x: number, y: number): void {
  const now = performance.now();
  if (now - lastCursorAt < 80) return;
  lastCursorAt = now;
  emit('cursor', { x, y });
}

// ─── the shard ───────────────────────────────────────────────────────────────

function emit(name: string, payload: EventPayload, to?: string): void {
  if (!connected) return;
  sentThisWindow++;
  dispatch.emitEvent(name, payload, to).catch((error: unknown) => {
    if (!isPlatformError(error) || error.code !== 'NOT_CONNECTED') console.warn(`sketch: ${name} not sent`, error);
  });
}

function showLatency(metadata: DispatchMessageMetadata): void {
  latencyByClient.set(metadata.clientId, metadata.latencyMs);
  const values = [...latencyByClient.values()];
  $<HTMLElement>('.latency').textContent = values.length ? `${(values.reduce((a, b) => a + b, 0) / values.length).toFixed(1)} ms (avg, one way)` : '–';
}

dispatch.on('cursor', (payload, metadata) => {
  showLatency(metadata);
  const x = Number(payload['x']);
  const y = Number(payload['y']);
  if (!Number.isFinite(x) || !Number.isFinite(y)) return;
  let element = remoteCursors.get(metadata.clientId);
  const player = clients.find((client) => client.clientId === metadata.clientId);
  if (!element) {
    element = document.createElement('div');
    element.className = 'cursor';
    cursors.append(element);
    remoteCursors.set(metadata.clientId, element);
  }
  element.textContent = `${infoText(player?.userInfo['name'], 'someone')} · ${metadata.latencyMs.toFixed(0)} ms`;
  element.style.background = infoText(player?.userInfo['color'], '#555');
  element.style.left = `${x * 100}%`;
  element.style.top = `${y * 100}%`;
});
dispatch.on('wave', (payload, metadata) => {
  showLatency(metadata);
  const from = typeof payload['name'] === 'string' ? payload['name'] : 'Someone';
  showToast(`${from} waved at you`);
  document.body.dataset['waves'] = String(Number(document.body.dataset['waves'] ?? 0) + 1);
});
dispatch.onConnectedClientsChanged((list) => {
  const arrived = list.length > clients.length;
  clients = list;
  for (const [clientId, element] of remoteCursors) {
    if (list.some((client) => client.clientId === clientId)) continue;
    element.remove();
    remoteCursors.delete(clientId);
    latencyByClient.delete(clientId);
  }
  keepColorOwn(list);
  renderPlayers();
  if (arrived) void refreshShards();
});

/**
 * Two players in one color cannot tell their strokes apart. The colors are picked at random
 * before anyone is known, so a clash is settled here: whoever joined later (or, at the same
 * time, has the larger id) takes the first color nobody uses, and tells the shard.
 */
function keepColorOwn(list: readonly ConnectedClient[]): void {
  const self = list.find((client) => client.clientId === dispatch.connectionInfo?.clientId);
  if (!self) return;
  const yieldsTo = (other: ConnectedClient): boolean => other.connectedAt < self.connectedAt || (other.connectedAt === self.connectedAt && other.clientId < self.clientId);
  const others = list.filter((client) => client.clientId !== self.clientId);
  if (!others.some((other) => other.userInfo['color'] === me.color && yieldsTo(other))) return;
  const taken = new Set(others.map((other) => other.userInfo['color']));
  me.color = COLORS.find((color) => !taken.has(color)) ?? pick(COLORS);
  reportedNet = '';
  dispatch.setUserInfo({ ...me }).catch((error: unknown) => console.warn('sketch: setUserInfo failed', error));
}

dispatch.onError((error) => {
  statusLine.textContent = error.message.replace(/^platform-kit: /, '');
});

function renderPlayers(): void {
  const self = dispatch.connectionInfo?.clientId;
  const paths = dispatch.session?.paths() ?? {};
  playersList.replaceChildren(
    ...clients.map((client) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset['clientId'] = client.clientId;
      const dot = document.createElement('span');
      dot.className = 'dot';
      dot.style.background = infoText(client.userInfo['color'], '#999');
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = `${infoText(client.userInfo['name'], client.clientId.slice(0, 6))}${client.clientId === self ? ' (you)' : ''}`;
      const detail = document.createElement('small');
      const path = paths[client.clientId];
      const latency = latencyByClient.get(client.clientId);
      detail.textContent =
        client.clientId === self ? '' : `${path === 'peer' ? 'P2P' : path === 'relay' ? 'relay' : '…'}${latency === undefined ? '' : ` · ${latency.toFixed(0)} ms`}`;
      button.append(dot, name, detail);
      button.disabled = client.clientId === self;
      button.addEventListener('click', () => {
        emit('wave', { name: me.name }, client.clientId);
        showToast(`You waved at ${infoText(client.userInfo['name'], 'them')}`);
      });
      item.append(button);
      return item;
    }),
  );
  $<HTMLElement>('.count').textContent = String(clients.length);
  document.body.dataset['players'] = String(clients.length);
  // A path being set up ('…', or the relay while the mesh starts, in the first seconds after
  // joining) is looked at again soon: a data channel opens within a few hundred ms, and the label
  // should say P2P then, not at the next 2 s report.
  const starting = performance.now() - joinedAt < MESH_START_MS;
  const settling = clients.some((client) => client.clientId !== self && (paths[client.clientId] === 'connecting' || (starting && paths[client.clientId] !== 'peer')));
  if (settling && connected && pathRecheck === undefined) pathRecheck = setTimeout(() => ((pathRecheck = undefined), renderPlayers()), 250);
}
/** How long after joining a member on the relay may still be on its way to the mesh. */
const MESH_START_MS = 5_000;
/** When this board last joined (performance.now()). */
let joinedAt = -Infinity;
/** The pending look at paths still being set up (renderPlayers). */
let pathRecheck: ReturnType<typeof setTimeout> | undefined;

async function refreshShards(): Promise<void> {
  if (!connected) return;
  try {
    const shards = await dispatch.info();
    $<HTMLElement>('.shards').textContent = shards.map((shard) => `${shard.shardName} (${shard.numConnectedClients})`).join(', ') || '–';
  } catch (error) {
    if (!isPlatformError(error) || error.code !== 'NOT_CONNECTED') console.warn('sketch: info() failed', error);
  }
}

/** Every 2 s: the events/s this player sends and its paths, in its userInfo (the shard dashboard shows them). */
function reportNetwork(): void {
  eventsPerSecond = sentThisWindow / 2;
  sentThisWindow = 0;
  renderPlayers();
  if (!connected) return;
  const counts = { p2p: 0, relay: 0, connecting: 0 };
  for (const [clientId, path] of Object.entries(dispatch.session?.paths() ?? {})) {
    if (clientId === dispatch.connectionInfo?.clientId) continue;
    counts[path === 'peer' ? 'p2p' : path]++;
  }
  const net = { ...counts, eventsPerSecond: Math.round(eventsPerSecond * 10) / 10 };
  const next = JSON.stringify(net);
  if (next === reportedNet) return;
  reportedNet = next;
  dispatch.setUserInfo({ ...me, net }).catch((error: unknown) => console.warn('sketch: setUserInfo failed', error));
}

async function join(): Promise<void> {
  wanted = true;
  if (connected) return;
  statusLine.textContent = 'joining…';
  try {
    await dispatch.setUserInfo({ ...me });
    const roomSize = Number(remix.get(['board', 'roomSize']) ?? 8);
    const info = await dispatch.connect({ maxConnectionsPerShard: roomSize });
    if (!wanted) return void dispatch.disconnect();
    connected = true;
    joinedAt = performance.now();
    reportedNet = '';
    statusLine.textContent = `you are ${me.name}`;
    $<HTMLElement>('.shard-name').textContent = info.shardName;
    document.body.dataset['shard'] = info.shardName;
    // The board is whole here (the state was attached before connect()): nobody is asked for it.
    redraw();
    document.body.dataset['strokesAtJoin'] = String(strokes.length);
    void refreshShards();
  } catch (error) {
    statusLine.textContent = `could not join: ${(error as Error).message.replace(/^platform-kit: /, '')}`;
  }
}

function parseStroke(value: unknown): Stroke | null {
  if (typeof value !== 'object' || value === null) return null;
  const { c, w, p } = value as Record<string, unknown>;
  if (typeof c !== 'string' || !/^#[0-9a-f]{3,8}$/i.test(c) || typeof w !== 'number' || !(w > 0 && w <= 48)) return null;
  if (!Array.isArray(p) || p.length < 2 || p.length > 4_000 || !p.every((n) => typeof n === 'number' && n >= -1 && n <= 2)) return null;
  return { c, w, p: p as number[] };
}

function showToast(message: string): void {
  toast.textContent = message;
  toast.hidden = false;
  window.clearTimeout(Number(toast.dataset['timer'] ?? 0));
  toast.dataset['timer'] = String(window.setTimeout(() => (toast.hidden = true), 2_500));
}

$<HTMLButtonElement>('.clear').addEventListener('click', () => {
  if (connected) strokes.delete(0, strokes.length);
});
state.onError((error) => {
  statusLine.textContent = error.message.replace(/^platform-kit: /, '');
});

// ─── remixing and the feed ───────────────────────────────────────────────────

remix.onValueChanged(render);
remix.onSetRemixing((isRemixing) => {
  document.body.classList.toggle('remixing', isRemixing);
  document.body.dataset['remixing'] = String(isRemixing); // what it was told last (for the tests, as <html data-playing>)
  // Joined already (at once, below): being away or here is Platform.dispatch's, from the host.
});
for (const element of document.querySelectorAll<HTMLElement>('[data-path]')) {
  element.addEventListener('click', () => {
    if (document.body.classList.contains('remixing')) void remix.onPresentControl(element.dataset['path']!.split('.'));
  });
}
const feed = joinFeed();

// No STUN server is needed between tabs of one machine (and none may be reachable).
if (location.hostname === '127.0.0.1' || location.hostname === 'localhost') dispatch.configure({ iceServers: [] });
new ResizeObserver(resize).observe(canvas);
window.setInterval(reportNetwork, 2_000);
window.setInterval(() => void refreshShards(), 5_000);
render();
void remix.ready().then(render);
void feed.load();
// At once, embedded or not: a preloaded feed item joins away and is here when it plays.
void join();
