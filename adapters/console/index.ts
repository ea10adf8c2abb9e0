export {
  type ConsoleAdapter,
  type ConsoleAdapterOptions,
  createConsoleAdapter,
  noSuchChoiceLine,
  PROMPT,
} from "./console-adapter.js";
export { renderReply } from "./render.js";
