import type { ChildProcess } from "node:child_process";

/**
 * Everything the bench starts registers how to stop it here. `runCleanups` stops them in reverse
 * order (each bounded), on success, on error and on SIGINT/SIGTERM; the `exit` hook is the last
 * resort for child processes only (it cannot wait), so no redis-server or bot outlives the bench.
 */
type Cleanup = { name: string; run: () => Promise<void> };

const cleanups: Cleanup[] = [];
const children = new Set<ChildProcess>();
const CLEANUP_STEP_MS = 15_000;

/** Registers a stop step; the handle runs it early (once), e.g. when a figure is done with its bot. */
export function onCleanup(name: string, run: () => Promise<void>): { stop(): Promise<void> } {
  let done: Promise<void> | undefined;
  const entry: Cleanup = { name, run: () => (done ??= run()) };
  cleanups.push(entry);
  return {
    stop() {
      const index = cleanups.indexOf(entry);
      if (index >= 0) cleanups.splice(index, 1);
      return bounded(name, entry.run);
    },
  };
}

/** A child process killed with SIGKILL on exit if nothing stopped it before. */
export function trackChild(child: ChildProcess): void {
  children.add(child);
  child.once("exit", () => children.delete(child));
}

export async function runCleanups(): Promise<void> {
  while (cleanups.length > 0) {
    const next = cleanups.pop();
    if (next) await bounded(next.name, next.run);
  }
  killChildren();
}

async function bounded(name: string, run: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      process.stderr.write(`bench: stopping ${name} took longer than ${CLEANUP_STEP_MS} ms; moving on\n`);
      resolve();
    }, CLEANUP_STEP_MS);
  });
  try {
    await Promise.race([run().catch((error) => warn(name, error)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function warn(name: string, error: unknown): void {
  process.stderr.write(`bench: error while stopping ${name}: ${(error as Error)?.message ?? error}\n`);
}

function killChildren(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      child.kill("SIGKILL");
    }
  }
}

/** Installs the signal and exit hooks; `main` runs the bench and answers the exit code. */
export function installCleanupHooks(): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`bench: ${signal}: stopping everything it started\n`);
    void runCleanups().finally(() => process.exit(130));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  process.once("exit", killChildren);
}
