// A greeting card template: every text and color is a VCC. It reads its
// values with get(), follows changes, and lets the user click a part of the
// card to open its control while remixing.
import 'virtual:platform-kit/customization';
import { InstantRemixing } from 'platform-kit/guest';

const remix = new InstantRemixing();
const card = document.querySelector<HTMLElement>('.card')!;
const title = document.querySelector<HTMLElement>('h1')!;
const message = document.querySelector<HTMLElement>('p')!;
const confetti = document.querySelector<HTMLElement>('.confetti')!;

function render(): void {
  title.textContent = String(remix.get(['card', 'title']) ?? '');
  message.textContent = String(remix.get(['card', 'message']) ?? '');
  card.style.setProperty('--background', String(remix.get(['card', 'background']) ?? '#fff'));
  card.style.setProperty('--text-color', String(remix.get(['card', 'textColor']) ?? '#000'));
  card.style.setProperty('--title-size', `${Number(remix.get(['card', 'size']) ?? 48)}px`);
  confetti.classList.toggle('on', remix.get(['card', 'confetti']) === true);
}

remix.onValueChanged(render);
remix.onSetRemixing((isRemixing) => document.body.classList.toggle('remixing', isRemixing));
remix.onSetActivePath((path) => {
  for (const element of document.querySelectorAll<HTMLElement>('[data-path]')) {
    element.classList.toggle('active', path !== null && element.dataset['path'] === path.join('.'));
  }
});
for (const element of document.querySelectorAll<HTMLElement>('[data-path]')) {
  element.addEventListener('click', () => {
    if (!document.body.classList.contains('remixing')) return;
    void remix.onPresentControl(element.dataset['path']!.split('.'));
  });
}
render();
void remix.ready();
