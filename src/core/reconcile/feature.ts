import { defineFeature, type ScheduledJob } from "../feature.js";
import { reconcileTick } from "./reconcile.js";

/** How often the account is read for the reconciliation (a day is closed by its first reading). */
const RECONCILE_EVERY_MS = 30 * 60_000;

/** The spend ledger against the service: once a day, its total against `total_trx_spent`. */
export const reconcileFeature = defineFeature({
  name: "reconcile",
  scheduled: ({ deps, alerts }): ScheduledJob[] => [
    {
      kind: "ticker",
      name: "ledger-reconcile",
      firstDelayMs: 60_000,
      retryMs: 60_000,
      run: async () => {
        await reconcileTick(deps, alerts);
        return RECONCILE_EVERY_MS;
      },
    },
  ],
});
