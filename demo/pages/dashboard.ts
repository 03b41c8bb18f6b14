// The shard dashboard: projects, shards, members, each member's path (P2P or
// relay) and events per second, polled every second from the demo server's
// `/demo-api/dashboard` (built from the signaling server's metrics and store).
import type { DashboardMember, DashboardSnapshot } from '../lib/shard-monitor.js';

const tiles = document.querySelector<HTMLElement>('.tiles')!;
const projects = document.querySelector<HTMLElement>('.projects')!;
const status = document.querySelector<HTMLElement>('.status')!;
const history: { events: number[]; deliveries: number[] } = { events: [], deliveries: [] };
const HISTORY = 60;

function element<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function sparkline(values: readonly number[]): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${HISTORY} 28`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('aria-hidden', 'true');
  const max = Math.max(1, ...values);
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  path.setAttribute('points', values.map((value, index) => `${HISTORY - values.length + index},${27 - (value / max) * 25}`).join(' '));
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', '#ffd43b');
  path.setAttribute('stroke-width', '1.5');
  path.setAttribute('vector-effect', 'non-scaling-stroke');
  svg.append(path);
  return svg;
}

function tile(label: string, value: string, spark?: readonly number[]): HTMLElement {
  const node = element('div', { className: 'tile' }, element('b', { textContent: value }), element('span', { textContent: label }));
  node.dataset['metric'] = label;
  if (spark) node.append(sparkline(spark));
  return node;
}

function pathLabel(member: DashboardMember): HTMLElement {
  const text =
    member.path === 'unreported'
      ? 'browser (path not reported)'
      : member.path === 'alone'
        ? 'alone'
        : member.links
          ? `${member.path === 'p2p' ? 'P2P' : member.path} (${member.links.p2p} P2P, ${member.links.relay} relay)`
          : member.path;
  return element('span', { className: `pill ${member.path}`, textContent: text });
}

function render(snapshot: DashboardSnapshot): void {
  const { server } = snapshot;
  history.events = [...history.events, server.eventsInPerSecond].slice(-HISTORY);
  history.deliveries = [...history.deliveries, server.deliveriesPerSecond].slice(-HISTORY);
  tiles.replaceChildren(
    tile('connections', String(server.connections)),
    tile('shards', String(server.shards)),
    tile('members', String(server.members)),
    tile('peer sockets', String(server.peerSockets)),
    tile('relayed events/s', String(server.eventsInPerSecond), history.events),
    tile('deliveries/s', String(server.deliveriesPerSecond), history.deliveries),
    tile('heap', `${(server.heapUsedBytes / 1048576).toFixed(0)} MB`),
    tile('uptime', `${Math.floor(snapshot.uptimeSeconds / 60)} min`),
  );
  projects.replaceChildren(
    ...snapshot.projects.map((project) =>
      element(
        'section',
        {},
        element('h2', { textContent: `Project ${project.id} · ${project.shards.length} shard${project.shards.length === 1 ? '' : 's'}` }),
        ...(project.shards.length === 0
          ? [element('p', { className: 'empty', textContent: 'No shard is open. Open Sketch party in two tabs to see one.' })]
          : project.shards.map((shard) => {
              const card = element(
                'article',
                { className: 'shard-card' },
                element(
                  'header',
                  {},
                  element('h3', { textContent: shard.name }),
                  element('span', { textContent: `${shard.numConnectedClients} connected` }),
                  element('span', { textContent: `${shard.relayedEventsPerSecond} relayed events/s` }),
                ),
                // On a phone the six columns are wider than the card: the table scrolls sideways, the card does not.
                element(
                  'div',
                  { className: 'table-scroll' },
                  element(
                    'table',
                    {},
                    element(
                      'thead',
                      {},
                      element('tr', {}, ...['member', 'kind', 'path', 'events/s (relayed · reported)', 'identity', 'since'].map((label) => element('th', { textContent: label }))),
                    ),
                    element(
                      'tbody',
                      {},
                      ...shard.members.map((member) => {
                        const name = element('td');
                        if (member.color) {
                          const swatch = element('span', { className: 'swatch' });
                          swatch.style.background = member.color;
                          name.append(swatch);
                        }
                        // Offline: its connection dropped without a goodbye (a closed tab leaves at once); the
                        // server keeps its place for the grace period so it can come back with the same id.
                        name.append(`${member.name ?? member.clientId.slice(0, 8)}${member.online ? '' : ' (connection lost: its place is kept 30 s for a reconnect)'}`);
                        const row = element(
                          'tr',
                          {},
                          name,
                          element('td', { textContent: member.kind }),
                          element('td', {}, pathLabel(member)),
                          element('td', { textContent: `${member.relayedEventsPerSecond} · ${member.reportedEventsPerSecond ?? '–'}` }),
                          element('td', { textContent: member.userId ? `user ${member.userId}` : 'anonymous' }),
                          element('td', { textContent: new Date(member.connectedAt).toLocaleTimeString() }),
                        );
                        row.dataset['clientId'] = member.clientId;
                        row.dataset['path'] = member.path;
                        return row;
                      }),
                    ),
                  ),
                ),
              );
              card.dataset['shard'] = shard.name;
              return card;
            })),
      ),
    ),
  );
  status.textContent = `live · ${new Date(snapshot.at).toLocaleTimeString()}`;
  document.body.dataset['updated'] = String(snapshot.at);
}

async function poll(): Promise<void> {
  try {
    const response = await fetch('/demo-api/dashboard', { cache: 'no-store' });
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    render((await response.json()) as DashboardSnapshot);
  } catch (error) {
    status.textContent = `offline: ${(error as Error).message}`;
  } finally {
    setTimeout(() => void poll(), 1_000);
  }
}
void poll();
