import type { ComplianceVerdict, createComplianceApi } from "./compliance.js";
import { COMPLIANCE_BATCH_MAX } from "./compliance.js";
import { isServiceError, ServiceError } from "./errors.js";

type ComplianceApi = ReturnType<typeof createComplianceApi>;
type LookupOptions = { maxLimiterWaitMs?: number };

interface Waiter {
  address: string;
  options: LookupOptions;
  resolve: (verdict: ComplianceVerdict) => void;
  reject: (error: unknown) => void;
}

/** How long lookups that come while another is under way are gathered before one batch call. */
const GATHER_MS = 5;

/**
 * Single deny-list lookups that arrive together share one authenticated batch call.
 *
 * The open lookup allows 10 calls a second and 300 a minute per IP; the batch takes 1000
 * addresses a call at 200 calls a second per key. A lookup that comes while nothing else is under
 * way is sent at once as an open lookup (a person's `compliance <address>` is as fast as ever),
 * but only when a slot is free right now: with none, it goes to the batch instead of waiting for
 * the open limit. Lookups that come while another is under way are gathered for a few
 * milliseconds (or until 1000) and sent as one batch call; while a batch call is under way the
 * next one gathers until it is answered.
 *
 * A caller that bounds its wait (`maxLimiterWaitMs`) keeps today's answer when it is alone: its
 * open lookup or `no_free_slot`, which it handles itself (a spend's preflight tries the batch,
 * an auto-watch leaves the baseline to the next re-check).
 *
 * Why not `dataloader`: its batch is scheduled when the batch opens, a full batch still waits for
 * that schedule, and every key of a batch is settled at once, so one waiter's fallback to the open
 * lookup (up to a minute under its limit) would hold all the others. What it would add here (a
 * queue, a split at 1000, fanning results out) is the few lines below.
 */
export function coalesceLookups(api: ComplianceApi, gatherMs = GATHER_MS): ComplianceApi {
  let gathering: Waiter[] | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** The gathering waited its few milliseconds and goes as soon as no batch call is under way. */
  let due = false;
  let lookups = 0;
  let batches = 0;

  function gathered(address: string, options: LookupOptions): Promise<ComplianceVerdict> {
    return new Promise((resolve, reject) => {
      gathering ??= [];
      gathering.push({ address, options, resolve, reject });
      if (gathering.length >= COMPLIANCE_BATCH_MAX) flush(true);
      else timer ??= setTimeout(() => flush(false), gatherMs);
    });
  }

  // One batch call at a time (more only for full ones): what arrives while one is under way goes
  // in the next, so a busy bot makes fewer, larger calls instead of one per lookup.
  function flush(full: boolean): void {
    clearTimeout(timer);
    timer = undefined;
    due = true;
    if (gathering === undefined || (batches > 0 && !full)) return;
    const waiters = gathering;
    gathering = undefined;
    due = false;
    batches += 1;
    void answerAll(api, waiters).finally(() => {
      batches -= 1;
      if (due) flush(false);
    });
  }

  async function alone(address: string, options: LookupOptions): Promise<ComplianceVerdict> {
    lookups += 1;
    try {
      return await api.lookup(address, { maxLimiterWaitMs: options.maxLimiterWaitMs ?? 0 });
    } catch (error) {
      if (options.maxLimiterWaitMs !== undefined || !isNoFreeSlot(error)) throw error;
    } finally {
      lookups -= 1;
    }
    return gathered(address, options);
  }

  const idle = () => gathering === undefined && lookups === 0 && batches === 0;
  return {
    ...api,
    lookup: (address, options = {}) => (idle() ? alone(address, options) : gathered(address, options)),
  };
}

/** One batch call for every waiter; each gets its verdict, the batch's error, or its own open lookup. */
async function answerAll(api: ComplianceApi, waiters: readonly Waiter[]): Promise<void> {
  const addresses = [...new Set(waiters.map((w) => w.address))];
  const limits = waiters.flatMap((w) => w.options.maxLimiterWaitMs ?? []);
  // Waiters that all bound their wait bound the batch's too; 200 calls a second rarely holds one.
  const options = limits.length === waiters.length ? { maxLimiterWaitMs: Math.min(...limits) } : {};
  let results: ComplianceVerdict[];
  try {
    ({ results } = await api.batch(addresses, options));
  } catch (error) {
    if (!batchRefused(error)) {
      for (const w of waiters) w.reject(error);
      return;
    }
    // This key may not batch, or no batch call is free: each waiter's own open lookup, as before.
    for (const w of waiters) api.lookup(w.address, w.options).then(w.resolve, w.reject);
    return;
  }
  // Results keep the request order (the spec); if the count differs, match them by address.
  const byIndex = results.length === addresses.length;
  const verdicts = new Map(results.map((v, i) => [byIndex ? (addresses[i] ?? v.address) : v.address, v]));
  for (const w of waiters) {
    const verdict = verdicts.get(w.address);
    if (verdict === undefined) api.lookup(w.address, w.options).then(w.resolve, w.reject);
    else if (verdict.category === "invalid") w.reject(invalidAddress(verdict));
    else w.resolve(verdict);
  }
}

const isNoFreeSlot = (error: unknown): boolean => isServiceError(error) && error.code === "no_free_slot";

/** Refusals of the batch call itself (the key, its IP, its limit), not answers about the deny list. */
function batchRefused(error: unknown): boolean {
  if (!isServiceError(error)) return false;
  if (error.kind === "rate_limited" || error.kind === "not_sent") return true;
  const status = error.httpStatus ?? 0;
  return error.kind === "http" && status >= 400 && status < 500;
}

/** What the open lookup answers for a malformed address (400, code 1001), from the batch's `invalid` entry. */
function invalidAddress(verdict: ComplianceVerdict): ServiceError {
  return new ServiceError({
    family: "compliance",
    endpoint: "compliance.lookup",
    kind: "http",
    httpStatus: 400,
    code: 1001,
    message: verdict.error ?? "invalid TRON address format",
    retryable: false,
  });
}
