/**
 * A button whose action could not be carried out (the store or the service failed, so nothing
 * changed, or a second run changes nothing more) is not used up. Its handler throws `NotCarriedOut`
 * with the one line that says what failed; the core frees the button's group (`releaseClaim` in
 * `src/core/actions.ts`), answers the presser alone and leaves the message and its buttons as
 * they were, so the same button works for a second try. Only for actions that are safe to run
 * again: a successful run still uses the button up.
 */
export class NotCarriedOut extends Error {
  override readonly name = "NotCarriedOut";
  readonly line: string;

  constructor(line: string, options: { cause?: unknown } = {}) {
    super(line, options.cause === undefined ? undefined : { cause: options.cause });
    this.line = line;
  }
}

/** Said after the handler's line once the button is free again. */
export const STILL_WORKS_LINE = "The button still works: press it again to retry.";
