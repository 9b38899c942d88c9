const fs = require('node:fs');
const TestSequencer = require('@jest/test-sequencer').default;

/** A test file that starts processes (the server, the CLI, npm, a Medusa store) takes seconds whatever its size. */
const STARTS_PROCESSES = /\bchild_process\b|\bspawnProcess\b|\/operations\/processes'|\/medusa-app'/;

/**
 * Jest orders files by their last recorded duration; with none recorded (a fresh clone, CI) it
 * runs the largest first, and a small file that starts processes may come last and keep one
 * worker busy alone. Those files go first when nothing is recorded about them.
 */
class ProcessesFirstSequencer extends TestSequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const first = sorted.filter((test) => test.duration == null && STARTS_PROCESSES.test(fs.readFileSync(test.path, 'utf8')));
    return [...first, ...sorted.filter((test) => !first.includes(test))];
  }
}

module.exports = ProcessesFirstSequencer;
