// Quick quiz: 2 to 8 players answer the same questions; the score is shard
// state, so a player who joins late (or reloads) sees the question everyone is
// on, who has answered, and every score, with no message from anyone.
//
// The state (platform-kit/guest/state) is three maps:
// - `players`: player id → name and color (each player writes its own key);
// - `answers`: `<game>:<question>:<player id>` → the choice (each player writes
//   only its own keys, once: no two players ever write one key, so the score
//   needs no arbiter: it is counted from the answers by everyone alike);
// - `round`: `game` and `question`, the only keys two players may write at
//   once (both pressing Next sets the same next question).
import { InstantRemixing, Platform, isPlatformError, type ConnectedClient, type ConnectionInfo } from 'platform-kit/guest';
import { shardState } from 'platform-kit/guest/state';
import { joinFeed } from '../shared/feed.js';
import { QUESTIONS } from './questions.js';

/** What `players` holds per player. */
interface Player {
  readonly name: string;
  readonly color: string;
}

const remix = new InstantRemixing();
const dispatch = Platform.dispatch;
// Attached before connect(): connect() resolves with the whole state held.
const state = shardState(dispatch);
const players = state.map<Player>('players');
const answers = state.map<number>('answers');
const round = state.map<number>('round');

const $ = <T extends Element>(selector: string): T => document.querySelector<T>(selector)!;
const statusLine = $<HTMLElement>('.status');
const choicesBox = $<HTMLElement>('.choices');
const nextButton = $<HTMLButtonElement>('.next');

const NAMES = ['Otter', 'Fox', 'Heron', 'Panda', 'Lynx', 'Koala', 'Moth', 'Yak', 'Gecko', 'Wren'];
const COLORS = ['#e03131', '#1971c2', '#2f9e44', '#f08c00', '#9c36b5', '#0c8599', '#d6336c', '#5c940d'];
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

/**
 * This player's id: kept for the tab (sessionStorage), so a reload rejoins as
 * the same player with its score, while two tabs are two players.
 */
const playerId = ((): string => {
  const fresh = Math.random().toString(36).slice(2, 10);
  try {
    const kept = sessionStorage.getItem('quiz-player');
    if (kept !== null && /^[a-z0-9]{4,12}$/.test(kept)) return kept;
    sessionStorage.setItem('quiz-player', fresh);
  } catch {
    // Storage refused (a sandboxed or private frame): a new player each load.
  }
  return fresh;
})();
const me: Player = { name: `${pick(NAMES)} ${Math.floor(10 + Math.random() * 90)}`, color: pick(COLORS) };

let online: readonly ConnectedClient[] = [];
let connected = false;
let wanted = false;

const text = (key: string, fallback: string): string => {
  const value = remix.get(['quiz', key]);
  return typeof value === 'string' ? value : fallback;
};

// ─── the game, read from the state ─────────────────────────────────────────

const game = (): number => round.get('game') ?? 0;
const questionIndex = (): number => round.get('question') ?? 0;
const answerKey = (g: number, q: number, player: string): string => `${g}:${q}:${player}`;

/** Every player's points in the current game: their right answers. */
function scores(): Map<string, number> {
  const prefix = `${game()}:`;
  const points = new Map<string, number>();
  for (const [id] of players.entries()) points.set(id, 0);
  for (const [key, choice] of answers.entries()) {
    if (!key.startsWith(prefix)) continue;
    const [, q, player] = key.split(':');
    const question = QUESTIONS[Number(q)];
    if (player === undefined || question === undefined) continue;
    points.set(player, (points.get(player) ?? 0) + (choice === question.answer ? 1 : 0));
  }
  return points;
}

/** Player ids present now (their userInfo carries the id). */
function presentIds(): Set<string> {
  return new Set(online.map((client) => client.userInfo['playerId']).filter((id): id is string => typeof id === 'string'));
}

function answer(choice: number): void {
  const key = answerKey(game(), questionIndex(), playerId);
  // One answer per question: a second tap (or a late one from another tab of the same player) changes nothing.
  if (answers.get(key) !== undefined) return;
  answers.set(key, choice);
}

function next(): void {
  round.set('question', questionIndex() + 1);
}

/** A new game: the next game number, question 0, and the finished game's answers removed (the state stays small). */
function playAgain(): void {
  const finished = `${game()}:`;
  state.doc.transact(() => {
    round.set('game', game() + 1);
    round.set('question', 0);
    for (const [key] of answers.entries()) if (key.startsWith(finished)) answers.delete(key);
  });
}

// ─── drawing ──────────────────────────────────────────────────────────────

function render(): void {
  $<HTMLElement>('h1').textContent = text('title', 'Quick quiz');
  $<HTMLElement>('.tagline').textContent = text('tagline', '');
  document.body.style.setProperty('--accent', text('accent', '#7048e8'));
  document.body.style.setProperty('--background', text('background', '#f8f7ff'));
  renderQuestion();
  renderScores();
}

function renderQuestion(): void {
  const q = questionIndex();
  const question = QUESTIONS[q];
  document.body.dataset['question'] = String(q);
  const present = presentIds();
  if (!question) {
    const ranking = [...scores()].sort((a, b) => b[1] - a[1]);
    const best = ranking[0];
    const tied = ranking.filter(([, points]) => points === best?.[1]).length > 1;
    const nameOfBest = players.get(best?.[0] ?? '')?.name ?? 'Someone';
    $<HTMLElement>('.progress').textContent = 'Game over';
    $<HTMLElement>('.question').textContent = !best
      ? 'Game over'
      : ranking.length === 1
        ? `${nameOfBest} scored ${best[1]} of ${QUESTIONS.length}`
        : tied
          ? `A tie at ${best[1]} of ${QUESTIONS.length}!`
          : `${nameOfBest} wins with ${best[1]} of ${QUESTIONS.length}!`;
    choicesBox.replaceChildren();
    $<HTMLElement>('.answered').textContent = '';
    nextButton.textContent = 'Play again';
    nextButton.hidden = !connected;
    return;
  }
  const mine = answers.get(answerKey(game(), q, playerId));
  const answeredBy = [...present].filter((id) => answers.get(answerKey(game(), q, id)) !== undefined);
  // The right answer shows once this player answered, or once everyone here has.
  const reveal = mine !== undefined || (present.size > 0 && answeredBy.length === present.size);
  $<HTMLElement>('.progress').textContent = `Question ${q + 1} of ${QUESTIONS.length}`;
  $<HTMLElement>('.question').textContent = question.text;
  choicesBox.replaceChildren(
    ...question.choices.map((label, index) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = label;
      button.dataset['choice'] = String(index);
      button.disabled = !connected || mine !== undefined;
      if (index === mine) button.classList.add('mine');
      if (reveal && index === question.answer) button.classList.add('right');
      else if (reveal && index === mine) button.classList.add('wrong');
      button.addEventListener('click', () => answer(index));
      return button;
    }),
  );
  const waiting = present.size - answeredBy.length;
  $<HTMLElement>('.answered').textContent =
    mine === undefined
      ? answeredBy.length > 0
        ? `${answeredBy.length} answered already`
        : present.size > 1
          ? 'Be the first to answer'
          : 'Waiting for another player? You can play alone too'
      : mine === question.answer
        ? `Right! ${waiting > 0 ? `Waiting for ${waiting} more` : 'Everyone answered'}`
        : `Not this time. ${waiting > 0 ? `Waiting for ${waiting} more` : 'Everyone answered'}`;
  nextButton.textContent = q + 1 < QUESTIONS.length ? 'Next question' : 'See who won';
  nextButton.hidden = !connected || !reveal;
}

function renderScores(): void {
  const present = presentIds();
  const ranking = [...scores()].sort((a, b) => b[1] - a[1] || (players.get(a[0])?.name ?? '').localeCompare(players.get(b[0])?.name ?? ''));
  $<HTMLElement>('.scores').replaceChildren(
    ...ranking.map(([id, points]) => {
      const player = players.get(id);
      const item = document.createElement('li');
      item.dataset['player'] = id;
      item.dataset['points'] = String(points);
      if (!present.has(id)) item.classList.add('away');
      if (id === playerId) item.classList.add('me');
      const dot = document.createElement('span');
      dot.className = 'dot';
      dot.style.background = player?.color ?? '#999';
      const name = document.createElement('span');
      name.textContent = `${player?.name ?? 'Someone'}${id === playerId ? ' (you)' : present.has(id) ? '' : ' (away)'}`;
      const score = document.createElement('span');
      score.className = 'points';
      score.textContent = String(points);
      item.append(dot, name, score);
      return item;
    }),
  );
  $<HTMLElement>('.count').textContent = present.size > 0 ? `· ${present.size} here` : '';
  document.body.dataset['scores'] = ranking.map(([id, points]) => `${players.get(id)?.name ?? id}=${points}`).join(',');
}

// ─── the shard ────────────────────────────────────────────────────────────

// Any change, local or from another player, redraws: the view is a function of the state.
players.onChange(render);
answers.onChange(render);
round.onChange(render);
state.onError((error) => {
  statusLine.textContent = error.message.replace(/^platform-kit: /, '');
});
dispatch.onConnectedClientsChanged((list) => {
  online = list;
  render();
});
nextButton.addEventListener('click', () => (QUESTIONS[questionIndex()] ? next() : playAgain()));

/** How many rooms a player tries before giving up (each holds up to 8). */
const MAX_ROOMS = 50;

/**
 * Joins the first quiz room with a seat: rooms are named (`quiz-1`, `quiz-2`…)
 * so quiz players meet quiz players; the server's automatic placement would
 * seat them with any template of the project. A full room answers SHARD_FULL.
 */
async function joinRoom(): Promise<ConnectionInfo> {
  const roomSize = Math.min(8, Math.max(2, Number(remix.get(['quiz', 'roomSize']) ?? 8)));
  for (let room = 1; ; room++) {
    try {
      return await dispatch.connect({ shardName: `quiz-${room}`, maxConnectionsPerShard: roomSize });
    } catch (error) {
      if (!isPlatformError(error) || error.code !== 'SHARD_FULL' || room >= MAX_ROOMS) throw error;
    }
  }
}

async function join(): Promise<void> {
  wanted = true;
  if (connected) return;
  statusLine.textContent = 'joining…';
  try {
    await dispatch.setUserInfo({ name: me.name, color: me.color, playerId });
    const info = await joinRoom();
    if (!wanted) return void dispatch.disconnect();
    connected = true;
    // The state is whole here (attached before connect()): a returning player keeps its name.
    const known = players.get(playerId);
    if (known) Object.assign(me, known);
    else {
      // Every player so far is known here, so a new one can take a color nobody has.
      const taken = new Set(players.entries().map(([, player]) => player.color));
      players.set(playerId, { ...me, color: COLORS.find((color) => !taken.has(color)) ?? me.color });
      Object.assign(me, players.get(playerId));
    }
    statusLine.textContent = `you are ${me.name} · room ${info.shardName}`;
    document.body.dataset['shard'] = info.shardName;
    document.body.dataset['joined'] = 'true';
    render();
    // What this player held the moment connect() resolved (the tests read it: no later message counts).
    document.body.dataset['scoresAtJoin'] = document.body.dataset['scores'] ?? '';
    document.body.dataset['questionAtJoin'] = document.body.dataset['question'] ?? '';
  } catch (error) {
    statusLine.textContent = `could not join: ${(error as Error).message.replace(/^platform-kit: /, '')}`;
  }
}

async function leave(): Promise<void> {
  wanted = false;
  if (!connected) return;
  connected = false;
  await dispatch.disconnect();
  online = [];
  document.body.dataset['joined'] = 'false';
  statusLine.textContent = 'paused (out of focus)';
  render();
}

// ─── remixing and the feed ────────────────────────────────────────────────

remix.onValueChanged(render);
remix.onSetRemixing((isRemixing) => {
  document.body.classList.toggle('remixing', isRemixing);
  if (isRemixing) void join();
});
for (const element of document.querySelectorAll<HTMLElement>('[data-path]')) {
  element.addEventListener('click', () => {
    if (document.body.classList.contains('remixing')) void remix.onPresentControl(element.dataset['path']!.split('.'));
  });
}
const feed = joinFeed({ onPlaybackStateChanged: (isPlaying) => void (isPlaying ? join() : leave()) });

if (location.hostname === '127.0.0.1' || location.hostname === 'localhost') dispatch.configure({ iceServers: [] });
render();
void remix.ready().then(render);
void feed.load();
if (window.parent === window) void join();
