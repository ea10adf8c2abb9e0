import { CONSOLE_PLATFORM } from "../../adapters/console/platform.js";
import { SLACK_PLATFORM } from "../../adapters/slack/platform.js";
import { TELEGRAM_PLATFORM } from "../../adapters/telegram/platform.js";
import type { Platform, PlatformFacts } from "../core/index.js";

/**
 * What each chat platform is like, as its adapter declares it, for the core (`CoreDeps.platforms`)
 * and the notify worker. Every platform's, whether it is configured or not: the facts are
 * constants, and a conversation of a platform turned off since (in a stored job) reads the same.
 */
export const PLATFORM_FACTS: ReadonlyMap<Platform, PlatformFacts> = new Map(
  [SLACK_PLATFORM, TELEGRAM_PLATFORM, CONSOLE_PLATFORM].map((facts) => [facts.platform, facts]),
);
