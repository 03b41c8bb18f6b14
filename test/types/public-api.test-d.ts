// Type tests of the public API (checked by `npm run test:types`, never run).
// Each @ts-expect-error must stay an error: if the types loosen, tsc fails.
import { InstantRemixing, PlatformError, getViewingContext, type EditorAttributes, type ErrorCode, type ViewingContext } from 'platform-kit/guest';
import { RemixSession, type TemplateFrame, type PresentControlEvent } from 'platform-kit/host';
import { Platform, type ConnectedClient, type IdentityTokenResult } from 'platform-kit/guest';
import { PlatformBackend, type SignalingServerOptions } from 'platform-kit/signaling';

declare const frame: TemplateFrame;
const session = new RemixSession();

// Error codes are a closed set.
const code: ErrorCode = 'SHARD_FULL';
// @ts-expect-error not a code
const notACode: ErrorCode = 'SOMETHING_ELSE';
new PlatformError('LINK_RESET', 'x');
// @ts-expect-error codes are checked at construction
new PlatformError('OOPS', 'x');

// Editor attributes are literal unions.
const attributes: EditorAttributes = { type: 'instant', mode: 'new' };
// @ts-expect-error no such editor type
const badAttributes: EditorAttributes = { type: 'compact', mode: 'new' };
new RemixSession({ editorAttributes: attributes });

// Without generated types, get() accepts string paths and returns unknown.
const remix = new InstantRemixing();
const value: unknown = remix.get(['card', 'title']);
// @ts-expect-error unknown is not a string until types are generated
const notYetString: string = remix.get(['card', 'title']);
// @ts-expect-error a path is an array of strings
remix.get('card.title');
// Listener removers are functions.
const remove: () => void = remix.onValueChanged((path: string[], newValue: unknown) => void [path, newValue]);
remove();
remix.onSetRemixing((isRemixing: boolean, editor: EditorAttributes) => void [isRemixing, editor]);
// The spec's signatures, as templates write them, type-check under strict (issue 16).
remix.onSetActivePath((path: string[]) => void path.join('.'));
remix.onSetActivePath((path) => {
  // Written without a type, the path is honest: null when the control closes.
  const maybe: string[] | null = path;
  void maybe;
});
void remix.onSetValue(['messages', 'items', 0, 'text'], 'first');
void remix.onPresentControl(['general', 'reveal', 'image']);
const inside: unknown = remix.get(['messages', 'items', 0, 'text']);
// @ts-expect-error a path holds strings and list indexes, nothing else
remix.get(['card', { key: 'title' }]);
// The remix state, read-only.
const remixing: boolean = remix.isRemixing;
const activePath: string[] | null = remix.remixingActivePath;
const editorType: 'full' | 'instant' | undefined = remix.editorAttributes.type;
// @ts-expect-error isRemixing is read-only
remix.isRemixing = true;
remix.onError((error: PlatformError, method: string) => void [error.code, method]);
// onConnectedClientsChanged((clients: ConnectedClient[]) => …) as the spec writes it: a plain array, each listener its own.
const unsubscribePresence: () => void = Platform.dispatch.onConnectedClientsChanged((clients: ConnectedClient[]) => void clients.sort((a, b) => a.connectedAt - b.connectedAt));
unsubscribePresence();
// Here or away (issue 27): a closed pair on every member; away members only on request.
Platform.dispatch.onConnectedClientsChanged((clients) => void clients.map((client) => client.state satisfies 'here' | 'away'), { includeAway: true });
// @ts-expect-error no such option
Platform.dispatch.onConnectedClientsChanged(() => undefined, { includeHidden: true });
// Spectators: the options, the flag on the connection, the count and the seat.
void Platform.dispatch.connect({ shardName: 'final', spectateWhenFull: true }).then((info) => {
  const watching: true | undefined = info.spectator;
  void watching;
});
void Platform.dispatch.connect({ spectator: true });
const offCount: () => void = Platform.dispatch.onSpectatorsChanged((count: number) => void count);
const offSeat: () => void = Platform.dispatch.onSeatAvailable(() => void Platform.dispatch.takeSeat().then((seated) => seated.clientId));
const watchingNow: number = Platform.dispatch.spectatorCount;
// @ts-expect-error spectatorCount is read-only
Platform.dispatch.spectatorCount = 3;
offCount();
offSeat();
void watchingNow;

// Contexts are a closed set too.
const context: ViewingContext = getViewingContext();
// @ts-expect-error not a context
const badContext: ViewingContext = 'preview';

// Host events are typed by name.
session.on('presentcontrol', (event: PresentControlEvent) => void event.path);
session.on('valuechange', ({ source }) => {
  const known: 'host' | 'guest' = source;
  void known;
});
// @ts-expect-error no such event
session.on('valuechanged', () => undefined);
// Only listener notifications can be queued with notify(); requests go through request().
void frame.notify('valueChanged', ['card', 'title'], 'x');
// @ts-expect-error describe is a request, not a notification
void frame.notify('describe');
// @ts-expect-error arguments are checked
void frame.notify('activePathChanged', 42);
void frame.request('describe');

// Platform.identity and PlatformBackend: values and instance types.
const tokenResult: Promise<IdentityTokenResult> = Platform.identity.getToken();
const backendDispatch: PlatformBackend.Dispatch = new PlatformBackend.Dispatch({ projectId: 'p', projectToken: 't', url: 'http://x' });
const backendIdentity: PlatformBackend.Identity = new PlatformBackend.Identity({ projectId: 'p', projectToken: 't', url: 'http://x' });
const resolved: Promise<{ token: string }> = backendIdentity.getToken();
// @ts-expect-error the backend identity is not a Dispatch
const notDispatch: PlatformBackend.Dispatch = backendIdentity;
const serverOptions: SignalingServerOptions = { projects: { a: 'token', b: { token: 't', ownerUserId: 'u' } }, dataDir: '/tmp/x', adminKey: 'k' };
// @ts-expect-error a project is a token or { token, ownerUserId }
const badServerOptions: SignalingServerOptions = { projects: { a: 42 } };

void [tokenResult, backendDispatch, resolved, notDispatch, serverOptions, badServerOptions];
void [code, notACode, badAttributes, value, notYetString, context, badContext, inside, remixing, activePath, editorType];
