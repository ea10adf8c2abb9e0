/**
 * The one line a user gets when the shared store does not answer before anything was done: the
 * adapters check every command and click against the store (the once-only mark) before running it,
 * so when that check fails nothing has run, and saying so is true. Answered at once, within
 * Slack's 3 seconds, instead of a bare error page or silence.
 */
export const STORE_UNAVAILABLE_LINE = "Storage is unavailable; nothing was done. Try again in a minute.";
