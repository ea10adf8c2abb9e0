import { CONSOLE_REGISTRATION } from "../../adapters/console/registration.js";
import { SLACK_REGISTRATION } from "../../adapters/slack/registration.js";
import { TEAMS_REGISTRATION } from "../../adapters/teams/registration.js";
import { TELEGRAM_REGISTRATION } from "../../adapters/telegram/registration.js";
import type { Config } from "../config/load-config.js";
import type { ConversationRef, Platform, PlatformFacts } from "../core/index.js";
import type { PlatformRegistration } from "../platform.js";

/**
 * The chat platforms, each registered once (`adapters/<name>/registration.ts`). The order is the
 * order of preference: the first configured platform's alert destination is the default of
 * OPS_AGENT_CHANNEL, and adapters start in this order.
 */
const PLATFORMS: readonly PlatformRegistration[] = [
  SLACK_REGISTRATION,
  TELEGRAM_REGISTRATION,
  TEAMS_REGISTRATION,
  CONSOLE_REGISTRATION,
];

/**
 * What each chat platform is like, as its adapter declares it, for the core (`CoreDeps.platforms`)
 * and the notify worker. Every platform's, whether it is configured or not: the facts are
 * constants, and a conversation of a platform turned off since (in a stored job) reads the same.
 */
export const PLATFORM_FACTS: ReadonlyMap<Platform, PlatformFacts> = new Map(
  PLATFORMS.map(({ facts }) => [facts.platform, facts]),
);

/** The platforms this configuration turns on: those configured, else the fallback (the console). */
export function platformsOn(config: Config): PlatformRegistration[] {
  const configured = PLATFORMS.filter((p) => !p.fallback && p.on(config));
  return configured.length > 0 ? configured : PLATFORMS.filter((p) => p.fallback && p.on(config));
}

/** The console demo runs: no chat platform is configured. */
export const fallbackOnly = (config: Config): boolean => platformsOn(config).every((p) => p.fallback);

/**
 * Where notifications with no known conversation go: each platform's alert destination, only
 * when the platform is on (a channel without its adapter could never be posted to).
 */
export const alertConversations = (config: Config): ConversationRef[] =>
  platformsOn(config).flatMap((p) => p.alerts?.conversation(config) ?? []);

/** The variables that name an alert destination, for the line that asks for one. */
export const ALERT_VARIABLES: readonly string[] = PLATFORMS.flatMap((p) => p.alerts?.variable ?? []);

/** The actor keys that hold the process as admins beyond OPS_ADMINS (the terminal's user). */
export const platformAdmins = (config: Config): string[] =>
  platformsOn(config).flatMap((p) => p.admins?.() ?? []);
