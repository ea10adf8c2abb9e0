/** The front door of `host/`: what other folders may use. Anything else here is internal. */

export { ACTIVE_HOSTS_KEY, activeHosts, isInHostMode } from "./active.js";
export { hostCommand } from "./host-command.js";
export { hostCallbackUrl } from "./host-payload.js";
