import { defineFeature } from "../feature.js";
import { payoutCancelAction } from "./payout-cancel.js";
import { payoutRun } from "./payout-spend.js";
import { createPollPayoutHandler } from "./payout-tracking.js";

/**
 * Payout runs: energy for 2–100 addresses in one quote, one Confirm, one orchestrator order. The
 * verb is `energy` (its command hands the payout forms here); this feature owns the Confirm, the
 * Cancel of queued addresses and the poll that edits the run's progress message.
 */
export const payoutFeature = defineFeature({
  name: "payout",
  spends: [payoutRun],
  actions: [payoutCancelAction],
  tracked: {
    "poll-payout": ({ deps }) => createPollPayoutHandler(deps),
  },
});
