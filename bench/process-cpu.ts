import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's CPU fields (USER_HZ), asked once. */
let userHz: number | undefined;

/**
 * CPU time (user + system) a process has used so far, from /proc/<pid>/stat, in ms (10 ms
 * resolution); with `endedChildren`, plus that of its children that have ended and been waited
 * for. Undefined where there is no /proc or the process is gone. The benchmark reads the dev
 * server's; the test environment reads its own jest worker's (`'self'`), children included.
 */
export function processCpuMs(pid: number | 'self', options: { readonly endedChildren?: boolean } = {}): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; fields after its closing parenthesis are fixed:
    // utime, stime, cutime, cstime are fields 14 to 17 of proc(5).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = fields.slice(11, options.endedChildren ? 15 : 13).map(Number);
    if (!ticks.every(Number.isFinite)) return undefined;
    userHz ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    return (ticks.reduce((sum, t) => sum + t, 0) * 1000) / userHz;
  } catch {
    return undefined;
  }
}
