// The demo's host page: embeds the greeting card template from the second
// origin and remixes it with a plain form. (The Lit editor replaces this
// panel once it lands.)
import { RemixSession, TemplateFrame, type VccType } from 'platform-kit/host/core';

const templateOrigin = `http://127.0.0.1:${location.port}`;
const stage = document.querySelector<HTMLElement>('#stage')!;
const panel = document.querySelector<HTMLElement>('#panel')!;
const status = document.querySelector<HTMLElement>('#status')!;
const toggle = document.querySelector<HTMLButtonElement>('#toggle')!;

const frame = new TemplateFrame({ src: `${templateOrigin}/templates/greeting/?context=remix`, container: stage, title: 'Greeting card template' });
const session = new RemixSession({ editorAttributes: { type: 'full', mode: 'new' } });
session.attach(frame);

frame.on('link', ({ relinked }) => (status.textContent = relinked ? 'template reloaded and relinked' : `linked to ${frame.origin}`));
frame.on('error', (error) => (status.textContent = error.message));
session.on('remixingchange', ({ isRemixing }) => (toggle.textContent = isRemixing ? 'Preview' : 'Remix'));
session.on('finish', () => (status.textContent = 'finished: previewing the remix'));
toggle.addEventListener('click', () => session.setRemixing(!session.remixing));
document.querySelector('#finish')!.addEventListener('click', () => session.finish());

const inputs = new Map<string, { label: HTMLLabelElement; input: HTMLInputElement | HTMLTextAreaElement }>();

session.on('customization', (customization) => {
  panel.replaceChildren();
  for (const scope of customization.editor) {
    const heading = document.createElement('h2');
    heading.textContent = scope.name ?? scope.key;
    panel.append(heading);
    for (const field of scope.fields) {
      const path = [scope.key, field.key];
      const type = session.typeAt(path);
      if (!type) continue;
      const label = document.createElement('label');
      label.textContent = field.name ?? field.key;
      const input = inputFor(type);
      const error = document.createElement('div');
      error.className = 'error';
      writeInput(input, session.get(path));
      input.addEventListener('input', () => {
        try {
          session.setValue(path, readInput(input, type));
          error.textContent = '';
        } catch (failure) {
          error.textContent = (failure as Error).message;
        }
      });
      input.addEventListener('focus', () => session.setActivePath(path));
      input.addEventListener('blur', () => session.setActivePath(null));
      label.append(input, error);
      panel.append(label);
      inputs.set(path.join('.'), { label, input });
    }
  }
});

session.on('valuechange', ({ path, value, source }) => {
  const entry = inputs.get(path.join('.'));
  if (entry && source === 'guest') writeInput(entry.input, value);
});
session.on('activepathchange', ({ path }) => {
  for (const [key, { label }] of inputs) label.classList.toggle('active', key === path?.join('.'));
});
session.on('presentcontrol', ({ path }) => inputs.get(path.join('.'))?.input.focus());

function inputFor(type: VccType): HTMLInputElement | HTMLTextAreaElement {
  if (type.kind === 'textarea') return document.createElement('textarea');
  const input = document.createElement('input');
  if (type.kind === 'color') input.type = 'color';
  else if (type.kind === 'boolean') input.type = 'checkbox';
  else if (type.kind === 'range') Object.assign(input, { type: 'range', min: String(type.min), max: String(type.max), step: String(type.step) });
  return input;
}

function writeInput(input: HTMLInputElement | HTMLTextAreaElement, value: unknown): void {
  if (input instanceof HTMLInputElement && input.type === 'checkbox') input.checked = value === true;
  else input.value = value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
}

function readInput(input: HTMLInputElement | HTMLTextAreaElement, type: VccType): unknown {
  if (type.kind === 'boolean') return (input as HTMLInputElement).checked;
  if (type.kind === 'range') return Number(input.value);
  return input.value;
}
