/** The front door of `host/`: what other folders may use. Anything else here is internal. */

export { ACTIVE_HOSTS_KEY, activeHosts } from "./active.js";
export { guardHost } from "./host-guard.js";
export { hostCallbackUrl } from "./host-payload.js";
