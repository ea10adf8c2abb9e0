/** The front door of `payout/`: what other folders may use. Anything else here is internal. */
export { runPayout } from "./payout-command.js";
export { readPayoutInput } from "./payout-input.js";
export { OPTION_WORDS } from "./payout-options.js";
