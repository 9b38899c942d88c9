import fs from 'node:fs';
import path from 'node:path';

/** The repository's root: README.md and docs/ live here. */
export const ROOT = path.join(__dirname, '../..');

/** README.md and every .md file under docs/, as absolute paths, in a stable order. */
export function markdownFiles(): string[] {
  const files = [path.join(ROOT, 'README.md')];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md')) files.push(full);
    }
  };
  walk(path.join(ROOT, 'docs'));
  return files;
}

/** The lines of a markdown text outside fenced code blocks (``` or ~~~), with their 1-based numbers. */
export function proseLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((raw, index) => {
    const marker = /^\s*(```|~~~)/.exec(raw)?.[1];
    if (marker && (fence === null || fence === marker)) {
      fence = fence === null ? marker : null;
      return;
    }
    if (fence === null) lines.push({ line: index + 1, text: raw });
  });
  return lines;
}

/** A heading's text as GitHub renders it: links by their text, no code backticks, no emphasis stars. */
function renderedHeading(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/\*/g, '')
    .trim();
}

/**
 * GitHub's anchor for a heading: lower case, every character that is not a letter, a digit, a
 * space, `-` or `_` dropped, each space a `-`. A repeated slug gets `-1`, `-2`, … in order.
 */
export function headingSlugs(text: string): string[] {
  const seen = new Map<string, number>();
  const slugs: string[] = [];
  for (const { text: line } of proseLines(text)) {
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = renderedHeading(heading[2]!)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.push(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** Headings (outside code blocks) of a markdown text, as written. */
export function headings(text: string): string[] {
  return proseLines(text)
    .map(({ text: line }) => /^#{1,6}\s+(.*?)\s*$/.exec(line)?.[1])
    .filter((heading): heading is string => heading !== undefined);
}

/** Every link and image target in the prose (not in code blocks or code spans), with its line. */
export function linkTargets(text: string): { line: number; target: string }[] {
  const targets: { line: number; target: string }[] = [];
  for (const { line, text: raw } of proseLines(text)) {
    const prose = raw.replace(/`[^`]*`/g, 'code');
    for (const match of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push({ line, target: match[1]! });
    for (const match of prose.matchAll(/<img\s[^>]*src="([^"]+)"/g)) targets.push({ line, target: match[1]! });
  }
  return targets;
}
