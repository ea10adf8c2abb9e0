/** The front door of `energy/`: what other folders may use. Anything else here is internal. */
export { wasDelivered } from "./delivery-watch.js";
export { energyCommand } from "./energy-command.js";
export type { EnergyConfirmPayload } from "./energy-payload.js";
export { energyOrder } from "./energy-spend.js";
