import fs from 'node:fs';

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat; 0 once it is gone. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name: fields 14 and 15 of stat(5), utime and stime, in 100 Hz ticks.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The summed CPU seconds of a set of processes, so a run can report what each side cost. */
export function cpuSecondsOfAll(pids: readonly number[]): Map<number, number> {
  return new Map(pids.map((pid) => [pid, cpuSecondsOf(pid)]));
}

/** CPU used since `before` by the given processes; a process that appeared meanwhile counts from 0. */
export function cpuSecondsSince(before: Map<number, number>, pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + Math.max(0, cpuSecondsOf(pid) - (before.get(pid) ?? 0)), 0);
}

/** CPU seconds used so far by every PostgreSQL process on this machine (server, backends, walwriter…); 0 where none is visible. */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuSecondsOf(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}
