export { livePayout, payoutSpend, placePayout } from "./confirm-payout.js";
export { runPayout } from "./payout-command.js";
export { readPayoutInput } from "./payout-input.js";
export { OPTION_WORDS } from "./payout-options.js";
export { payoutConfirmPayloadSchema } from "./payout-payload.js";
