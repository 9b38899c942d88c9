import fs from 'node:fs';
import path from 'node:path';
import { ROOT, headingSlugs, linkTargets, markdownFiles } from './markdown';

/**
 * Every relative link and image in README.md and docs/**\/*.md points at a file or folder that
 * exists, and every #anchor (in the same page or in another .md file) at one of its headings, by
 * GitHub's slug rules. Links to other sites (http, https, mailto) are not followed.
 */
function brokenLinks(files: string[]): string[] {
  const slugsOf = new Map<string, Set<string>>();
  const slugs = (file: string) => {
    let known = slugsOf.get(file);
    if (!known) slugsOf.set(file, (known = new Set(headingSlugs(fs.readFileSync(file, 'utf8')))));
    return known;
  };
  const broken: string[] = [];
  for (const file of files) {
    const where = (line: number) => `${path.relative(ROOT, file)}:${line}`;
    for (const { line, target } of linkTargets(fs.readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const hash = target.indexOf('#');
      const linkPath = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
      const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
      const resolved = linkPath === '' ? file : path.resolve(path.dirname(file), linkPath);
      if (!fs.existsSync(resolved)) {
        broken.push(`${where(line)}: ${target}: no such file`);
        continue;
      }
      if (anchor === null) continue;
      if (!resolved.endsWith('.md')) broken.push(`${where(line)}: ${target}: an anchor into a file that is not markdown`);
      else if (!slugs(resolved).has(anchor)) broken.push(`${where(line)}: ${target}: no heading with that anchor in ${path.relative(ROOT, resolved)}`);
    }
  }
  return broken;
}

describe('links in README.md and docs/', () => {
  it('finds the documents', () => {
    const files = markdownFiles().map((file) => path.relative(ROOT, file));
    expect(files).toContain('README.md');
    expect(files).toContain('docs/README.md');
    expect(files).toContain('docs/api/rest.md');
  });

  it('resolves every relative link, image and anchor', () => {
    expect(brokenLinks(markdownFiles())).toEqual([]);
  });

  it('lists every document in docs/README.md', () => {
    const index = path.join(ROOT, 'docs/README.md');
    const listed = new Set(linkTargets(fs.readFileSync(index, 'utf8')).map(({ target }) => path.resolve(ROOT, 'docs', target.split('#')[0]!)));
    const unlisted = markdownFiles().filter((file) => file !== index && !file.endsWith(`${path.sep}README.md`) && !listed.has(file));
    expect(unlisted.map((file) => path.relative(ROOT, file))).toEqual([]);
  });
});

describe('the link checker', () => {
  const scratch = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'links-'));
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('follows GitHub slug rules, duplicates included', () => {
    expect(headingSlugs('# Reward lifecycle: hold → approve → pay, or void\n## `GET /healthz`, GET /readyz\n## Tests\n```\n# not a heading\n```\n## Tests\n### 3. Configure\n')).toEqual([
      'reward-lifecycle-hold--approve--pay-or-void',
      'get-healthz-get-readyz',
      'tests',
      'tests-1',
      '3-configure',
    ]);
  });

  it('reports a missing file, a missing anchor and a missing image, and nothing in code', () => {
    const page = path.join(scratch, 'page.md');
    fs.writeFileSync(path.join(scratch, 'other.md'), '# Other\n\n## Part two\n');
    fs.writeFileSync(
      page,
      [
        '# Page',
        '[ok](other.md#part-two) [ok](#page) [ok](https://example.com/x.md) [ok](other.md)',
        '[gone](missing.md) [bad anchor](other.md#part-three) [bad local](#nowhere) ![img](pic.png)',
        '`[in code](missing.md)`',
        '```',
        '[in a block](missing.md)',
        '```',
      ].join('\n'),
    );
    expect(brokenLinks([page]).map((problem) => problem.replace(/^.*page\.md:/, ''))).toEqual([
      '3: missing.md: no such file',
      `3: other.md#part-three: no heading with that anchor in ${path.relative(ROOT, path.join(scratch, 'other.md'))}`,
      `3: #nowhere: no heading with that anchor in ${path.relative(ROOT, page)}`,
      '3: pic.png: no such file',
    ]);
  });
});
