import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The pages a reader copies samples from and follows links in: README.md, then every docs/*.md
 * by name (issue 25 moved the audiences' text there), as paths relative to `root`.
 */
export async function documentationPages(root: string): Promise<string[]> {
  const docs = (await readdir(join(root, 'docs'))).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/**
 * What the README's and docs' host and backend samples call but leave to the reader, declared as a reader
 * would write them (a project id is a string: `openEditor` takes one, so a sample that hands it
 * `string | null` fails). One list for the two tests that compile the samples:
 * test/node/readme-samples.test.ts (against the kit's source) and
 * test/e2e/readme-template.test.ts (against the packed kit, in a project made from docs/templates.md).
 */
export const README_HOST_STUBS = `declare function fetchMoreItems(offset: number): Promise<{ url: string; projectId: string; title?: string }[]>;
declare function openEditor(projectId: string): void;
declare function myUpload(file: File): Promise<{ url: string }>;
declare function myKeystore(value: string): Promise<{ keyPath: string }>;
declare function publish(values: unknown): void;
declare function openMyControl(path: readonly string[], type: unknown, position: unknown): void;
declare function saveDraft(path: readonly string[], value: unknown): void;
declare function showPreview(): void;
`;
