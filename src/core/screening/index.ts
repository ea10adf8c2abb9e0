/** The front door of `screening/`: what other folders may use. Anything else here is internal. */
export { screenCommand } from "./screen-command.js";
export { pickProvider } from "./screening-providers.js";
