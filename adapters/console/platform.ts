import { atName, atTop, type PlatformFacts } from "../../src/core/index.js";

/**
 * The console as the core and the notify worker see it (`PlatformFacts`): one flat conversation
 * on a terminal, written as fast as it comes (no pace, so nothing is ever folded into a digest),
 * no threads, no home screen.
 */
export const CONSOLE_PLATFORM: PlatformFacts = {
  platform: "console",
  commandPrefix: "",
  onePerson: true,
  mention: atName,
  limits: { maxChars: 20_000, blockChars: 20_000 },
  sendGapMs: () => 0,
  followUp: (conversation) => conversation,
  visibleAnswer: atTop,
};
