import { randomBytes } from "node:crypto";
import type { Clock } from "../../../clock.js";

/**
 * The two webhook registries of the service (order webhooks and report webhooks), as data. The account
 * family serves them over HTTP; the outbound sender reads them at every delivery attempt, so a pause,
 * a URL change or a rotated secret takes effect on the next attempt.
 */
export type RegistryKind = "order" | "report";
export type EndpointRole = "primary" | "backup";

export const ENDPOINT_ROLES: readonly EndpointRole[] = ["primary", "backup"];
export const MAX_ENDPOINTS = 2;

export interface WebhookEndpoint {
  id: number;
  userId: number;
  kind: RegistryKind;
  url: string;
  role: EndpointRole;
  is_active: boolean;
  created_at: string;
  updated_at: string;
  secret: string;
}

/** The endpoint as the registries show it outside create/rotate replies: never the secret. */
export function publicView(endpoint: WebhookEndpoint) {
  const { id, url, role, is_active, created_at, updated_at } = endpoint;
  return { id, url, role, is_active, created_at, updated_at };
}

const newSecret = (): string => `whsec_${randomBytes(24).toString("base64url")}`;

export function createEndpointBook(now: Clock) {
  const endpoints: WebhookEndpoint[] = [];
  let nextId = 1;
  const stamp = () => new Date(now()).toISOString();

  function list(userId: number, kind: RegistryKind): WebhookEndpoint[] {
    return endpoints.filter((e) => e.userId === userId && e.kind === kind).sort((a, b) => a.id - b.id);
  }

  function get(userId: number, kind: RegistryKind, id: number): WebhookEndpoint | undefined {
    return endpoints.find((e) => e.id === id && e.userId === userId && e.kind === kind);
  }

  function create(userId: number, kind: RegistryKind, url: string, role: EndpointRole): WebhookEndpoint {
    const at = stamp();
    const endpoint: WebhookEndpoint = {
      id: nextId++,
      userId,
      kind,
      url,
      role,
      is_active: true,
      created_at: at,
      updated_at: at,
      secret: newSecret(),
    };
    endpoints.push(endpoint);
    return endpoint;
  }

  /** Applies a change; a new role swaps with the endpoint holding it, in one step. */
  function update(
    endpoint: WebhookEndpoint,
    change: { url?: string; is_active?: boolean; role?: EndpointRole },
  ): WebhookEndpoint {
    const at = stamp();
    if (change.role !== undefined && change.role !== endpoint.role) {
      const holder = list(endpoint.userId, endpoint.kind).find((e) => e.role === change.role);
      if (holder) {
        holder.role = endpoint.role;
        holder.updated_at = at;
      }
      endpoint.role = change.role;
    }
    if (change.url !== undefined) endpoint.url = change.url;
    if (change.is_active !== undefined) endpoint.is_active = change.is_active;
    endpoint.updated_at = at;
    return endpoint;
  }

  function rotate(endpoint: WebhookEndpoint): WebhookEndpoint {
    endpoint.secret = newSecret();
    endpoint.updated_at = stamp();
    return endpoint;
  }

  function remove(endpoint: WebhookEndpoint): void {
    const index = endpoints.indexOf(endpoint);
    if (index >= 0) endpoints.splice(index, 1);
  }

  /** The endpoint currently holding `role` for the account, active or not. */
  function withRole(userId: number, kind: RegistryKind, role: EndpointRole): WebhookEndpoint | undefined {
    return list(userId, kind).find((e) => e.role === role);
  }

  return { list, get, create, update, rotate, remove, withRole };
}

export type EndpointBook = ReturnType<typeof createEndpointBook>;
