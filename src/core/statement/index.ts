/** The front door of `statement/`: what other folders may use. Anything else here is internal. */
export { parseStatementArgs } from "./statement-args.js";
