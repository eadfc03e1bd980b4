#!/usr/bin/env node
// Prints the CHANGELOG.md section of one version (Keep a Changelog: `## [X.Y.Z] - date`), for the
// release workflow. A tag without its section fails the release rather than publishing no notes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function releaseNotes(changelog, version) {
  const lines = changelog.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`## [${version}]`));
  if (start < 0) return null;
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => l.startsWith('## '));
  return (end < 0 ? rest : rest.slice(0, end)).join('\n').trim();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const version = process.argv[2];
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const notes = version ? releaseNotes(readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8'), version) : null;
  if (!notes) {
    console.error(
      `CHANGELOG.md has no section "## [${version ?? '?'}]": add it before tagging v${version ?? '?'}`,
    );
    process.exit(1);
  }
  console.log(notes);
}
