/**
 * Which arguments of a code judge's command name files, so a missing script is found before any
 * model call rather than as a crash mid-run. Only plain path-like words count: code given inline
 * (`node -e "..."`), flags, variables and URLs are never taken for files.
 */
const SCRIPT_EXTENSION = /\.(?:[cm]?[jt]s|tsx|py|sh|bash|zsh|rb|pl|php|lua|r|jl|exe|bat|cmd|ps1)$/i;
const PLAIN_WORD = /^[\w@%+=:,.~/-]+$/;
/** Flags whose next argument is code, not a file. */
const INLINE_CODE_FLAGS = new Set(['-e', '-c', '-p', '--eval', '--print', '-m']);

export function scriptFileArgs(command: string | readonly string[]): string[] {
  const argv = typeof command === 'string' ? command.trim().split(/\s+/) : command;
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (INLINE_CODE_FLAGS.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-') || !PLAIN_WORD.test(arg) || arg.includes('://')) continue;
    if (arg.includes('/') || SCRIPT_EXTENSION.test(arg)) files.push(arg);
  }
  return files;
}
