/** The front door of `energy/`: what other folders may use. Anything else here is internal. */
export { energySpend, livePayload, placeEnergy } from "./confirm-energy.js";
export { wasDelivered } from "./delivery-watch.js";
export { energyCommand } from "./energy-command.js";
