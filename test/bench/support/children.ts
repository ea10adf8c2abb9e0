import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { onCleanup, trackChild } from "./cleanup.js";
import { sleep } from "./net.js";

/**
 * Node child processes for the figures that must not measure the bench itself (RSS, start-up):
 * the built bot (`node dist/src/main.js`) and the bare baseline server. Output goes to a log file.
 */
export interface Child {
  pid: number;
  /** performance.now() just before the spawn. */
  spawnedAt: number;
  process: ChildProcess;
  /** VmRSS from /proc/<pid>/status, in MB; undefined once the process is gone. */
  rssMb(): number | undefined;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SpawnOptions {
  name: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  logFile: string;
  /**
   * The program (default: this node). Another one (`npm`) runs in a process group of its own,
   * and stop() signals the whole group: npm's scripts are its children.
   */
  command?: string;
}

export function spawnNode(options: SpawnOptions): Child {
  const out = openSync(options.logFile, "a");
  const spawnedAt = performance.now();
  const group = options.command !== undefined;
  const child = spawn(options.command ?? process.execPath, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", out, out],
    detached: group,
  });
  closeSync(out);
  trackChild(child);
  if (child.pid === undefined) throw new Error(`could not start ${options.name}`);
  const pid = child.pid;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const alive = () => child.exitCode === null && child.signalCode === null;
  const signal = (name: NodeJS.Signals) => {
    try {
      if (group) process.kill(-pid, name);
      else child.kill(name);
    } catch {
      // Already gone.
    }
  };
  async function stop(graceMs = 12_000) {
    if (alive()) {
      signal("SIGTERM");
      const first = await Promise.race([exited, sleep(graceMs).then(() => undefined)]);
      if (first) return first;
      if (alive()) signal("SIGKILL");
    }
    return exited;
  }
  const cleanup = onCleanup(options.name, async () => void (await stop()));
  return {
    pid,
    spawnedAt,
    process: child,
    rssMb: () => (alive() ? readRssMb(pid) : undefined),
    async stop(graceMs) {
      const result = await stop(graceMs);
      await cleanup.stop();
      return result;
    },
  };
}

function readRssMb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** RSS samples every `everyMs` for `forMs`; the samples in MB (missing ones skipped). */
export async function sampleRss(child: Child, forMs: number, everyMs: number): Promise<number[]> {
  const samples: number[] = [];
  const end = performance.now() + forMs;
  while (performance.now() < end) {
    const rss = child.rssMb();
    if (rss !== undefined) samples.push(rss);
    await sleep(everyMs);
  }
  return samples;
}
