import type { Readable, Writable } from "node:stream";
import type { Config } from "./config/load-config.js";
import type {
  ChatAdapter,
  ChatAdapterLifecycle,
  ConversationRef,
  Core,
  CoreDeps,
  PlatformFacts,
} from "./core/index.js";
import type { HttpRoute } from "./http/server.js";
import type { Logger } from "./log.js";

/** What an adapter is given to start: the configuration, the core and its parts. */
interface PlatformStart {
  config: Config;
  core: Core;
  deps: CoreDeps;
  logger: Logger;
  /** The local terminal, for a platform that talks on it. */
  stdin?: Readable;
  stdout?: Writable;
}

/** What the wiring holds of a started adapter: the send port, the lifecycle, its route if it has one. */
type MountedAdapter = ChatAdapter &
  ChatAdapterLifecycle & {
    readonly route?: HttpRoute;
    /** Its routes, where it has more than one. */
    readonly routes?: readonly HttpRoute[];
    /** Resolves when its input has ended (a terminal on a pipe); absent where input never ends. */
    readonly finished?: Promise<void>;
  };

/**
 * One chat platform, as the rest of the bot knows it: everything a platform brings is here, and
 * `src/wiring/platforms.ts` lists each registration once. Its name (`facts.platform`) is its
 * identity prefix (`<name>:<id>` in OPS_ADMINS, OPS_ONCALL, OPS_AGENT_CHANNEL); how it types a
 * command and writes a mention are in its `facts`.
 */
export interface PlatformRegistration {
  readonly facts: PlatformFacts;
  /** The environment variables that configure it (each declared in src/config/variables.ts). */
  readonly variables: readonly string[];
  /** Runs only when no other platform is configured (the console demo). */
  readonly fallback?: boolean;
  /** Turned on by this configuration (a fallback: asked only when no other is on). */
  on(config: Config): boolean;
  /** Its alert destination, when configured, and the variable that names it. */
  readonly alerts?: {
    /** The variable that names it; absent where it needs none (the terminal). */
    readonly variable?: string;
    conversation(config: Config): ConversationRef | undefined;
  };
  /** Who holds this platform as an admin beyond OPS_ADMINS (the terminal's user), as actor keys. */
  admins?(): string[];
  /** The adapter, made and mounted by the wiring; it starts with `start()`. */
  create(start: PlatformStart): MountedAdapter;
}
