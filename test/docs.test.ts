import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../src/listener/errors.js';

/**
 * The contract lives in docs/, and the code points there. These checks keep the two in step: no
 * comment leans on a document outside the repository, every `docs/<file>.md#<section>` pointer
 * lands on a heading that exists, and the layer table of docs/architecture.md names real folders.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = join(ROOT, 'docs');
const SCANNED = ['src', 'test', 'bench', 'scripts'];


const TEXT_FILE = /\.(ts|tsx|js|mjs|cjs|md)$/;

function textFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : textFiles(path);
    return TEXT_FILE.test(entry.name) ? [path] : [];
  });
}

const scannedFiles = (): string[] => [...SCANNED.flatMap((dir) => textFiles(join(ROOT, dir))), join(ROOT, 'README.md')];

/** `path:line: text` of every line matching one of `patterns`. */
function findLines(files: string[], patterns: RegExp[]): string[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8').split('\n').flatMap((line, i) =>
      patterns.some((pattern) => pattern.test(line)) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : []),
  );
}

/**
 * Citations of documents that are not part of the repository. Built from pieces so that this file
 * does not match its own patterns.
 */
const FOREIGN_CITATIONS: RegExp[] = [
  new RegExp('(?<!docs/)decisions' + '\\.md'),
  new RegExp('\\b(the|a) ' + 'spec\\b', 'i'),
  new RegExp('\\bspec' + "'s\\b", 'i'),
  new RegExp('\\bspec ' + '(says|spelling|wording|rule|order|value|names)\\b', 'i'),
  new RegExp('(//|/\\*|^\\s*\\*).*(\\(|\\b)' + 'spec[:)]', 'i'),
  new RegExp('\\b' + 'spec/[\\w-]+\\.md'),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings, numbered as GitHub numbers repeated ones. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1]!);
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** Where a pointer to `file#anchor` does not land, or null when it does. */
function brokenPointer(file: string, anchor: string | undefined): string | null {
  const path = join(DOCS, file);
  if (!existsSync(path)) return `docs/${file} does not exist`;
  if (anchor !== undefined && !anchorsOf(path).has(anchor)) return `docs/${file} has no section #${anchor}`;
  return null;
}

/** The first-column folders of the table under `## Layers` in docs/architecture.md. */
function layerFolders(): string[] {
  const text = readFileSync(join(DOCS, 'architecture.md'), 'utf8');
  const section = /^## Layers\n([\s\S]*?)(?=^## )/m.exec(text)?.[1] ?? '';
  return [...section.matchAll(/^\| `([^`]+\/)` \|/gm)].map((match) => match[1]!);
}

describe('docs/', () => {
  it('is the only reference the code cites: no document outside the repository', () => {
    expect(findLines(scannedFiles(), FOREIGN_CITATIONS)).toEqual([]);
  });

  it('catches a citation of an outside document (the patterns themselves work)', () => {
    const cite = (text: string) => FOREIGN_CITATIONS.some((pattern) => pattern.test(text));
    expect(cite(`// as ${'decisions'}.md fixes`)).toBe(true);
    expect(cite(`/** the ${'spec'}'s rule */`)).toBe(true);
    expect(cite(`// Memory endpoints (${'spec'}: Memory)`)).toBe(true);
    expect(cite(`// as the ${'spec'} says`)).toBe(true);
    expect(cite('// see docs/decisions.md#one-run-per-session')).toBe(false);
    expect(cite('for (const spec of registry.list()) {')).toBe(false);
    expect(cite('export function compileTimeline(spec: ScheduleSpec) {')).toBe(false);
  });

  it('has every section that a source comment points to', () => {
    const broken: string[] = [];
    let pointers = 0;
    for (const file of scannedFiles()) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        for (const match of line.matchAll(/\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g)) {
          pointers++;
          const problem = brokenPointer(match[1]!, match[2]);
          if (problem !== null) broken.push(`${relative(ROOT, file)}:${i + 1}: ${problem}`);
        }
      });
    }
    expect(broken).toEqual([]);
    expect(pointers).toBeGreaterThan(50);
  });

  it('links between its own pages only to pages and sections that exist', () => {
    const broken: string[] = [];
    for (const page of readdirSync(DOCS).filter((name) => name.endsWith('.md'))) {
      const text = readFileSync(join(DOCS, page), 'utf8');
      for (const match of text.matchAll(/\]\(([\w-]+\.md)?(?:#([\w-]+))?\)/g)) {
        const problem = brokenPointer(match[1] ?? page, match[2]);
        if (problem !== null) broken.push(`docs/${page}: ${problem}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('computes anchors as GitHub does', () => {
    expect(headingSlug('Only 127.0.0.1 counts as unexposed')).toBe('only-127001-counts-as-unexposed');
    expect(headingSlug('Outbound: no redirects, no URL credentials')).toBe('outbound-no-redirects-no-url-credentials');
    expect(brokenPointer('api.md', 'paging')).toBeNull();
    expect(brokenPointer('api.md', 'no-such-section')).not.toBeNull();
    expect(brokenPointer('no-such-page.md', undefined)).not.toBeNull();
  });
});

describe('docs/api.md', () => {
  it('lists every catalogue code under its status in the errors table, and no other', () => {
    const text = readFileSync(join(DOCS, 'api.md'), 'utf8');
    const section = /^## Errors\n([\s\S]*?)(?=^## )/m.exec(text)?.[1] ?? '';
    const documented: Record<string, number> = {};
    for (const row of section.matchAll(/^\| (\d{3}) \| ([^|]*) \|/gm)) {
      for (const code of row[2]!.matchAll(/`(AGENTD_\w+)`/g)) documented[code[1]!] = Number(row[1]);
    }
    const catalogue = Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([code, { status }]) => [code, status]));
    expect(documented).toEqual(catalogue);
  });
});

describe('docs/architecture.md', () => {
  const folders = layerFolders();

  it('names in its layer table folders that exist under src/', () => {
    expect(folders.length).toBeGreaterThan(20);
    const missing = folders.filter((folder) => !existsSync(join(ROOT, 'src', folder)));
    expect(missing).toEqual([]);
  });

  it('has a row for every top-level folder of src/', () => {
    const tops = new Set(folders.map((folder) => folder.split('/')[0]));
    const folderless = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !tops.has(entry.name))
      .map((entry) => `${entry.name}/`);
    expect(folderless).toEqual([]);
  });
});
