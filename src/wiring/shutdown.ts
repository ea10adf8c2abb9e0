import { within } from "../clock.js";
import type { Logger } from "../log.js";

/**
 * The order in which the app stops, each phase bounded by what is left of one budget:
 * - `accept`: stop taking new connections (and /healthz turns 503);
 * - `finish`: the chat adapters refuse new requests and finish the commands in flight;
 * - `drain`: HTTP requests in flight end, then the connections left are cut;
 * - `workers`: job workers stop taking jobs and finish the ones running;
 * - `connections`: queues, Redis, the demo sandbox.
 * A step that outlives the budget is left behind with a warning, so stopping always ends: a BullMQ
 * worker waits for its jobs in flight, and a Redis that is gone never answers QUIT.
 */
const PHASES = ["accept", "finish", "drain", "workers", "connections"] as const;
export type Phase = (typeof PHASES)[number];

/** Every step gets at least this long, so connections are closed even after a step overran. */
const MIN_STEP_MS = 250;

type Step = { name: string; run: (timeoutMs: number) => Promise<void> | void };

export function createShutdown(logger: Logger) {
  const steps = new Map<Phase, Step[]>(PHASES.map((phase) => [phase, []]));
  let running: Promise<void> | undefined;

  async function runStep(phase: Phase, step: Step, deadline: number): Promise<void> {
    const left = Math.max(MIN_STEP_MS, deadline - Date.now());
    const work = Promise.resolve()
      .then(() => step.run(left))
      .then(
        () => "done" as const,
        (error: unknown) => {
          logger.warn({ err: error, phase, step: step.name }, "error while stopping");
          return "failed" as const;
        },
      );
    if ((await within(work, left, () => "overran" as const)) === "overran") {
      logger.warn(
        { phase, step: step.name, waitedMs: left },
        "stopping: a part did not finish within the shutdown budget; going on without it",
      );
    }
  }

  return {
    /** `run` gets the time left of the budget, for closes that take a timeout of their own. */
    add(phase: Phase, name: string, run: Step["run"]): void {
      steps.get(phase)?.push(step(name, run));
    },
    /** Runs every phase in order (steps of one phase together); once, however often it is called. */
    run(budgetMs: number): Promise<void> {
      running ??= (async () => {
        const deadline = Date.now() + budgetMs;
        for (const phase of PHASES) {
          await Promise.all((steps.get(phase) ?? []).map((s) => runStep(phase, s, deadline)));
        }
      })();
      return running;
    },
  };
}

export type Shutdown = ReturnType<typeof createShutdown>;

const step = (name: string, run: Step["run"]): Step => ({ name, run });
