export {
  type ConsoleAdapter,
  createConsoleAdapter,
  PROMPT,
} from "./console-adapter.js";
