import fs from 'node:fs';

/** Linux reports a thread's CPU time in clock ticks of 10 ms (USER_HZ 100). */
const MS_PER_TICK = 10;
/** How often the loop is asked whether it is free: a block shorter than this is never seen whole. */
const PROBE_MS = 5;

/** The CPU time (ms) this process's main thread (the event loop's; its thread id is the pid) has used so far. */
function mainThreadCpuMs(): number {
  const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  // Fields after the parenthesised name: state is the 3rd field, utime the 14th and stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}

/**
 * Watches how long the event loop goes between two turns, counted in the CPU time its thread used
 * meanwhile (a timer every 5 ms): how long a request arriving then would have waited for work on
 * this process. Not the wall-clock delay perf_hooks' monitorEventLoopDelay reports: on a loaded
 * machine the thread also waits for a CPU, which is no code's block. `stop()` gives the longest, in ms
 * (±10 ms, the clock's tick).
 */
export function watchEventLoopBlocks(): { stop: () => number } {
  let longest = 0;
  let last = mainThreadCpuMs();
  const probe = setInterval(() => {
    const now = mainThreadCpuMs();
    longest = Math.max(longest, now - last);
    last = now;
  }, PROBE_MS).unref();
  return {
    stop: () => {
      clearInterval(probe);
      return Math.max(longest, mainThreadCpuMs() - last);
    },
  };
}
