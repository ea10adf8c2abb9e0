/**
 * Roles granted through a chat platform's user group (`slack:S…` in OPS_ADMINS / OPS_OPERATORS):
 * the members as last read, actor keys by group entry. The platform's adapter reads them and keeps
 * them current (adapters/slack/user-groups.ts); `roleOf` only asks. A group never read grants nothing.
 */
export interface UserGroupDirectory {
  /** True when `actorKey` (`slack:U…`) is a member of the group `entry` (`slack:S…`) as last read. */
  has(entry: string, actorKey: string): boolean;
  /** The members of `entry`, as actor keys (replacing what was known). */
  set(entry: string, actorKeys: readonly string[]): void;
}

/** `slack:S…`: a Slack user group, not a user. */
export const isUserGroupEntry = (entry: string): boolean => /^slack:S[A-Z0-9]{2,}$/.test(entry);

export function createUserGroupDirectory(): UserGroupDirectory {
  const members = new Map<string, ReadonlySet<string>>();
  return {
    has: (entry, actorKey) => members.get(entry)?.has(actorKey) ?? false,
    set(entry, actorKeys) {
      members.set(entry, new Set(actorKeys));
    },
  };
}
