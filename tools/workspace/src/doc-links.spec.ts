/**
 * The README and docs/ are read in a clone of this repository, on GitHub or on npm: a link that leaves the
 * repository (`../shared/SPEC.md`, an absolute path) or names a file or heading that does not exist is broken for
 * every reader. Web addresses are left alone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

const WORKSPACE_ROOT = path.join(__dirname, '..', '..', '..');

/**
 * README.md, every Markdown file under docs/ and the packages' READMEs (npm shows them), tracked or new, relative
 * to the workspace root.
 */
function documents(): string[] {
  const listed = execFileSync(
    'git',
    [
      'ls-files',
      '--cached',
      '--others',
      '--exclude-standard',
      '--',
      'README.md',
      'docs',
      ':(glob)apps/*/README.md',
      ':(glob)libs/**/README.md',
    ],
    { cwd: WORKSPACE_ROOT, encoding: 'utf8' },
  );
  return listed.split('\n').filter((file) => file === 'README.md' || file.endsWith('.md'));
}

/** Markdown without code: links inside fences or backticks are examples, not links. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The targets of inline links `[text](target "title")` and of reference definitions `[label]: target`. */
function linkTargets(markdown: string): string[] {
  const text = withoutCode(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const references = [...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]);
  return [...inline, ...references];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsIn(file: string): Set<string> {
  const headings = withoutCode(readFileSync(file, 'utf8')).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm);
  return new Set([...headings].map((m) => anchorOf(m[1].replace(/`/g, ''))));
}

/** What is wrong with a link from `document` (relative to the root), or null when it is fine. */
function problemWith(document: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    return /^(https?|mailto):/i.test(target) ? null : `${target}: not a web address`;
  }
  const [file, anchor] = target.split('#', 2);
  if (path.isAbsolute(file)) return `${target}: an absolute path`;
  const resolved =
    file === ''
      ? path.join(WORKSPACE_ROOT, document)
      : path.resolve(WORKSPACE_ROOT, path.dirname(document), file);
  const inside = path.relative(WORKSPACE_ROOT, resolved);
  if (inside.startsWith('..') || path.isAbsolute(inside)) return `${target}: outside the repository`;
  if (!existsSync(resolved)) return `${target}: no such file`;
  if (anchor && resolved.endsWith('.md') && statSync(resolved).isFile() && !anchorsIn(resolved).has(anchor)) {
    return `${target}: no such heading in ${inside}`;
  }
  return null;
}

describe('links in README.md and docs/', () => {
  it('finds the documents, and links in them', () => {
    expect(documents()).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/architecture.md']));
    expect(
      linkTargets('See [the API](docs/api.md#errors) and [x][1].\n\n[1]: ../x.md\n`[not](a-link)`'),
    ).toEqual(['docs/api.md#errors', '../x.md']);
  });

  it('stay inside the repository and point at files and headings that exist', () => {
    const broken = documents().flatMap((document) =>
      linkTargets(readFileSync(path.join(WORKSPACE_ROOT, document), 'utf8'))
        .map((target) => problemWith(document, target))
        .filter((problem): problem is string => problem !== null)
        .map((problem) => `${document}: ${problem}`),
    );
    expect(broken).toEqual([]);
  });

  it("links, from the README, the operations guide's Kubernetes, tracing and backup sections", () => {
    // Issue 24's "done when": an operator finds each from the README (the test above checks the headings exist).
    const links = linkTargets(readFileSync(path.join(WORKSPACE_ROOT, 'README.md'), 'utf8'));
    for (const section of ['kubernetes', 'tracing', 'backups']) {
      const target = `docs/operations.md#${section}`;
      expect({ target, linked: links.includes(target) }).toEqual({ target, linked: true });
    }
  });

  it('tells each kind of broken link from a good one', () => {
    expect(problemWith('README.md', '../shared/SPEC.md')).toBe('../shared/SPEC.md: outside the repository');
    expect(problemWith('README.md', '/work/shared/SPEC.md')).toBe('/work/shared/SPEC.md: an absolute path');
    expect(problemWith('README.md', 'file:///etc/passwd')).toBe('file:///etc/passwd: not a web address');
    expect(problemWith('README.md', 'docs/nothing.md')).toBe('docs/nothing.md: no such file');
    expect(problemWith('docs/api.md', '../README.md#no-such-heading')).toBe(
      '../README.md#no-such-heading: no such heading in README.md',
    );
    expect(problemWith('docs/api.md', '../README.md#configuration')).toBeNull();
    expect(problemWith('docs/api.md', 'architecture.md')).toBeNull();
    expect(problemWith('README.md', 'https://example.com/x')).toBeNull();
  });
});
