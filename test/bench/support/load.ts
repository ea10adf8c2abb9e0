import { Worker } from "node:worker_threads";
import type { LoadPlan, MaxPlan, MaxResult, RatePlan, RateResult } from "./load-types.js";

export type * from "./load-types.js";

/**
 * Runs a load plan in a worker thread. tsx does not hook worker threads on Node 20, so the worker
 * registers tsx's loader itself before importing the TypeScript module.
 */
const TSX_API = import.meta.resolve("tsx/esm/api");
const WORKER_MODULE = new URL("./load-worker.ts", import.meta.url).href;
const BOOT = `import(${JSON.stringify(TSX_API)}).then((api) => { api.register(); return import(${JSON.stringify(WORKER_MODULE)}); })`;

/** Beyond the plan's own length, how long the worker may take before it is stopped. */
const GRACE_MS = 45_000;

export function runLoad(plan: RatePlan): Promise<RateResult>;
export function runLoad(plan: MaxPlan): Promise<MaxResult>;
export function runLoad(plan: LoadPlan): Promise<RateResult | MaxResult> {
  const planMs = plan.mode === "rate" ? (plan.count / plan.ratePerSec) * 1000 : plan.durationMs;
  const worker = new Worker(BOOT, { eval: true, workerData: plan });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`load worker did not finish within ${Math.round(planMs + GRACE_MS)} ms`));
    }, planMs + GRACE_MS);
    const finish = () => {
      clearTimeout(timer);
      void worker.terminate();
    };
    worker.once(
      "message",
      (message: { ok: true; result: RateResult | MaxResult } | { ok: false; error: string }) => {
        finish();
        if (message.ok) resolve(message.result);
        else reject(new Error(`load worker failed: ${message.error}`));
      },
    );
    worker.once("error", (error) => {
      finish();
      reject(error);
    });
    worker.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`load worker exited (${code}) without a result`));
    });
  });
}

/** Latencies (ms) of the 2xx answers of an open-loop run, and how many were not 2xx. */
export function rateLatencies(result: RateResult): { latencies: number[]; non2xx: number } {
  const latencies: number[] = [];
  let non2xx = 0;
  result.status.forEach((status, i) => {
    const sent = result.sentAt[i];
    const done = result.doneAt[i];
    if (status >= 200 && status <= 299 && sent !== undefined && done !== undefined)
      latencies.push(done - sent);
    else non2xx += 1;
  });
  return { latencies, non2xx };
}
