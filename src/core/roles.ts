import { type Actor, actorKey } from "./invocation.js";
import { isUserGroupEntry, type UserGroupDirectory } from "./user-groups.js";

/** viewer < operator < admin: each role may do everything the roles below it may. */
export type Role = "viewer" | "operator" | "admin";

const ROLES: readonly Role[] = ["viewer", "operator", "admin"];

const rank = (role: Role): number => ROLES.indexOf(role);

export interface RoleSettings {
  /** `slack:<id>` / `telegram:<id>` (OPS_ADMINS). */
  admins: readonly string[];
  /** `slack:<id>` / `telegram:<id>` (OPS_OPERATORS). */
  operators: readonly string[];
  /** The members of the user groups named in the lists, as last read (unset: groups grant nothing). */
  userGroups?: Pick<UserGroupDirectory, "has">;
}

/**
 * Named in OPS_ADMINS → admin, in OPS_OPERATORS → operator (directly, or as a member of a user
 * group named there), everyone else → viewer.
 */
export function roleOf(actor: Actor, settings: RoleSettings): Role {
  const key = actorKey(actor);
  const listed = (list: readonly string[]) =>
    list.includes(key) ||
    (settings.userGroups !== undefined &&
      list.some((entry) => isUserGroupEntry(entry) && settings.userGroups?.has(entry, key)));
  if (listed(settings.admins)) return "admin";
  if (listed(settings.operators)) return "operator";
  return "viewer";
}

/** True when `role` is at least `needed`. */
export const can = (role: Role, needed: Role): boolean => rank(role) >= rank(needed);

/** The higher of two roles (a button needs whatever its record and its handler ask, whichever is more). */
export const higherRole = (a: Role, b: Role): Role => (rank(a) >= rank(b) ? a : b);

const LIST_FOR: Record<Role, string> = { viewer: "", operator: "OPS_OPERATORS", admin: "OPS_ADMINS" };

/**
 * The one line a user gets when their role is too low; it names what is needed and the exact
 * entry an admin must add, so the fix needs no lookup:
 * `energy needs the operator role; you are a viewer. Ask an admin to add slack:U123 to OPS_OPERATORS.`
 */
export function refusalLine(what: string, needed: Role, role: Role, actor: Actor): string {
  const article = role === "admin" || role === "operator" ? "an" : "a";
  return (
    `${what} needs the ${needed} role; you are ${article} ${role}. ` +
    `Ask an admin to add ${actorKey(actor)} to ${LIST_FOR[needed]}.`
  );
}
