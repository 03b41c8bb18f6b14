// A greeting card template: every text, color, the picture and the sound are
// VCCs. It reads its values with get(), follows changes, lets the user click a
// part of the card to open its control while remixing, and plays its sound
// when the card comes into focus in the feed (or when the bell is pressed).
import { InstantRemixing } from 'platform-kit/guest';
import { joinFeed } from '../shared/feed.js';
import { mountRemixControls } from '../shared/remix-controls.js';

const remix = new InstantRemixing();
const card = document.querySelector<HTMLElement>('.card')!;
const title = document.querySelector<HTMLElement>('h1')!;
const message = document.querySelector<HTMLElement>('p')!;
const photo = document.querySelector<HTMLImageElement>('.photo')!;
const play = document.querySelector<HTMLButtonElement>('.play')!;
const audio = document.querySelector<HTMLAudioElement>('audio')!;
const confetti = document.querySelector<HTMLElement>('.confetti')!;

const text = (path: [string, string], fallback: string): string => {
  const value = remix.get(path);
  return typeof value === 'string' ? value : fallback;
};

function render(): void {
  title.textContent = text(['card', 'title'], '');
  message.textContent = text(['card', 'message'], '');
  card.style.setProperty('--background', text(['card', 'background'], '#fff'));
  card.style.setProperty('--text-color', text(['card', 'textColor'], '#000'));
  card.style.setProperty('--title-size', `${Number(remix.get(['card', 'size']) ?? 48)}px`);
  confetti.classList.toggle('on', remix.get(['card', 'confetti']) === true);
  const picture = text(['card', 'photo'], '');
  photo.hidden = picture === '';
  if (picture !== '' && photo.getAttribute('src') !== picture) photo.src = picture;
  const sound = text(['card', 'sound'], '');
  play.hidden = sound === '' && !remixing();
  if (sound !== '' && audio.getAttribute('src') !== sound) audio.src = sound;
}

function ring(): void {
  if (!audio.getAttribute('src')) return;
  audio.currentTime = 0;
  // Autoplay may be refused until the viewer has touched the page: the bell still works then.
  audio.play().catch(() => undefined);
}

remix.onValueChanged(render);
const remixing = mountRemixControls(remix, render);
remix.onSetActivePath((path) => {
  for (const element of document.querySelectorAll<HTMLElement>('[data-path]')) {
    element.classList.toggle('active', path !== null && element.dataset['path'] === path.join('.'));
  }
});
play.addEventListener('click', () => {
  if (!remixing()) ring();
});

const feed = joinFeed({
  onPlaybackStateChanged: (isPlaying) => {
    if (isPlaying) ring();
    else audio.pause();
  },
});
render();
// ready() resolves after the host's values arrived (they come first on the link): draw them.
void remix.ready().then(render);
void feed.load();
