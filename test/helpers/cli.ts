import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** The built CLI (`npm test` builds first), run as an operator would. */
export const BIN = resolve('bin/agentd.js');

/** `agentd serve …` in the background; `ready` resolves with the URL once the ready line is printed. */
export function spawnServe(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  const ready = new Promise<string>((res, rej) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const m = /agentd listening on (http:\/\/\S+)/.exec(stdout);
      if (m?.[1]) res(m[1]);
    });
    child.on('exit', (code) => rej(new Error(`exited ${code}: ${stderr}`)));
  });
  return { child, ready, exited, stdout: () => stdout, stderr: () => stderr };
}
