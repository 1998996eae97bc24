// The README's "Build your own agent" section as a project: its TypeScript block holds several files,
// each starting with a `// <path> — <what it is>` line, and its bash blocks hold the commands a user
// types. `npm run test:package` writes these files into a fresh project and runs those commands, so
// the section is what CI runs, not a copy of it.
//
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The section's files (path → content) and its shell command lines (comments removed). */
export interface ReadmeProject {
  readonly files: Readonly<Record<string, string>>;
  readonly commands: readonly string[];
}

export const sectionHeading = '## Build your own agent';

/** The section's text, from its heading to the next heading of any level. */
export function readmeSection(markdown: string): string {
  const start = markdown.indexOf(`\n${sectionHeading}\n`);
  if (start < 0) throw new Error(`README has no "${sectionHeading}" section`);
  const rest = markdown.slice(start + 1 + sectionHeading.length);
  const end = /^#{1,6} /m.exec(rest)?.index;
  return `${sectionHeading}${rest.slice(0, end)}`;
}

function codeBlocks(section: string, lang: string): string[] {
  return [...section.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1] ?? '');
}

const fileHeader = /^\/\/ ((?:src|test)\/[\w./-]+\.ts) — /;

/** Splits the section's code into its files and command lines. */
export function readmeProject(markdown: string): ReadmeProject {
  const section = readmeSection(markdown);
  const files: Record<string, string[]> = {};
  for (const block of codeBlocks(section, 'ts')) {
    let current: string[] | undefined;
    for (const line of block.split('\n')) {
      const path = fileHeader.exec(line)?.[1];
      if (path) {
        if (files[path]) throw new Error(`README "${sectionHeading}": ${path} appears twice`);
        current = files[path] = [];
      }
      if (!current) throw new Error(`README "${sectionHeading}": code before the first "// <path> — " line: ${line}`);
      current.push(line);
    }
  }
  const commands = codeBlocks(section, 'bash')
    .flatMap((block) => block.split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '');
  return { files: Object.fromEntries(Object.entries(files).map(([path, lines]) => [path, `${lines.join('\n').trim()}\n`])), commands };
}

if (require.main === module) {
  // `commands README.md`: the command lines; `files README.md DIR`: writes the files into DIR, whose
  // folders the section's own commands must have created.
  const [what, readme, dir] = process.argv.slice(2);
  if (!readme || (what !== 'commands' && !(what === 'files' && dir))) throw new Error('usage: tsx test/package/readme-project.ts commands README.md | files README.md <project dir>');
  const project = readmeProject(readFileSync(readme, 'utf8'));
  if (what === 'commands') process.stdout.write(`${project.commands.join('\n')}\n`);
  else for (const [path, content] of Object.entries(project.files)) writeFileSync(join(dir ?? '.', path), content);
}
