// The template of the editor-large benchmark (origin http://127.0.0.1:PORT): a customization of
// ?big=SCOPESxFIELDS (the test fixture's generator), nothing else; the work measured is the host's.
import { defineCustomization, InstantRemixing } from '../../guest/index.js';
import { bigCustomization } from '../../test/fixtures/editor/big-customization.js';

const big = /^(\d+)x(\d+)$/.exec(new URLSearchParams(location.search).get('big') ?? '');
defineCustomization(bigCustomization(Number(big?.[1] ?? 1), Number(big?.[2] ?? 1)));
void new InstantRemixing().ready();
