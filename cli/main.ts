#!/usr/bin/env node
/**
 * `agentctl`: the ops CLI of agent runs. `npm run agentctl -- --help`,
 * `node --import tsx cli/main.ts --help`, or the `agentctl` bin.
 */
import { connectAgents, runAgentctl } from './cli';

// A closed pipe (`agentctl events RUN | head`) is the reader saying "enough", not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

void runAgentctl(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  terminal: { input: process.stdin, isTTY: process.stdin.isTTY === true, prompt: (text) => process.stdout.write(text) },
  connect: connectAgents,
}).then((code) => {
  process.exitCode = code;
  // The command is over, whatever it left open (a socket, a native runtime, a timer of a
  // library): exit once stdout and stderr have been written out, never hang after an answer.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
});
