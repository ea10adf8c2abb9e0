import type { App } from "@slack/bolt";
import { isUserGroupEntry, type Logger, type UserGroupDirectory } from "../../src/core/index.js";
import type { Store } from "../../src/store/store.js";

/**
 * Roles from Slack user groups (`slack:S…` in OPS_ADMINS, OPS_OPERATORS, OPS_ONCALL): members read
 * with `usergroups.users.list` (scope `usergroups:read`) when the bot starts, again on every
 * `subteam_members_changed` event and at least every POLL_MS. What was read is kept in the store,
 * so every instance grants the same: each one loads it into its directory every MIRROR_MS (an
 * instance that did not get the event follows within 15 s). A group that cannot be read is one
 * line at start and grants nothing until it can be.
 */
const POLL_MS = 10 * 60_000;
const MIRROR_MS = 10_000;
/** Longer than a poll: a group whose reads keep failing is dropped after a day, not kept forever. */
const KEEP_MS = 24 * 60 * 60_000;
const membersKey = (group: string) => `slack-usergroup:${group}`;

/** The part of the Web API client this reads (Bolt's `app.client`). */
interface UserGroupsClient {
  usergroups: { users: { list(args: { usergroup: string }): Promise<{ users?: string[] }> } };
}

export interface SlackUserGroupsOptions {
  client: UserGroupsClient;
  store: Store;
  logger: Logger;
  directory: UserGroupDirectory;
  /** The entries of the role lists (any kind); the `slack:S…` ones are read, with the list they came from. */
  lists: Readonly<Record<string, readonly string[]>>;
  pollMs?: number;
  mirrorMs?: number;
}

export interface SlackUserGroups {
  /** Reads every group once; one warning line per group that cannot be read. Then keeps them current. */
  start(): Promise<void>;
  /** Reads one group again (a `subteam_members_changed` event). */
  read(groupId: string): Promise<boolean>;
  stop(): void;
}

export function createSlackUserGroups(options: SlackUserGroupsOptions): SlackUserGroups {
  const { client, store, logger, directory } = options;
  const groups = new Map<string, string[]>();
  for (const [list, entries] of Object.entries(options.lists)) {
    for (const entry of entries.filter(isUserGroupEntry)) {
      const id = entry.slice("slack:".length);
      groups.set(id, [...(groups.get(id) ?? []), list]);
    }
  }
  const timers: NodeJS.Timeout[] = [];

  async function read(groupId: string): Promise<boolean> {
    if (!groups.has(groupId)) return false;
    const answer = await client.usergroups.users.list({ usergroup: groupId });
    const members = (answer.users ?? []).map((user) => `slack:${user}`);
    await store.set(membersKey(groupId), JSON.stringify(members), KEEP_MS);
    directory.set(`slack:${groupId}`, members);
    return true;
  }

  async function mirror(): Promise<void> {
    for (const id of groups.keys()) {
      const raw = await store.get(membersKey(id));
      if (raw !== null) directory.set(`slack:${id}`, JSON.parse(raw) as string[]);
    }
  }

  async function readAll(warn: boolean): Promise<void> {
    for (const [id, lists] of groups) {
      try {
        await read(id);
      } catch (error) {
        if (!warn) continue;
        // The Web API client's platform error carries Slack's code (`missing_scope`, `no_such_subteam`).
        const why = (error as { data?: { error?: string } }).data?.error ?? (error as Error).message;
        logger.warn(
          { group: id, lists, code: why },
          `Slack user group ${id} (${lists.join(", ")}) cannot be read with usergroups.users.list (${why}; the app needs the usergroups:read scope): it grants nothing until it can be read`,
        );
      }
    }
  }

  return {
    async start() {
      if (groups.size === 0) return;
      await readAll(true);
      timers.push(setInterval(() => void readAll(false).catch(() => {}), options.pollMs ?? POLL_MS));
      timers.push(setInterval(() => void mirror().catch(() => {}), options.mirrorMs ?? MIRROR_MS));
      for (const timer of timers) timer.unref();
    },
    read,
    stop() {
      for (const timer of timers.splice(0)) clearInterval(timer);
    },
  };
}

/** `subteam_members_changed`: the group named is read again at once. */
export function registerUserGroupEvents(app: App, groups: SlackUserGroups, logger: Logger): void {
  app.event("subteam_members_changed", async ({ event }) => {
    await groups.read(event.subteam_id).catch((error: unknown) => {
      logger.warn({ err: error, group: event.subteam_id }, "could not read a changed Slack user group");
    });
  });
}
