import type { SandboxAccount } from "../../accounts.js";
import type { SandboxContext } from "../../context.js";
import {
  isRecord,
  json,
  type Route,
  readJson,
  type SandboxReply,
  type SandboxRequest,
} from "../../router.js";
import { authenticate, isReply, validationReply } from "./common.js";
import {
  ENDPOINT_ROLES,
  type EndpointBook,
  type EndpointRole,
  MAX_ENDPOINTS,
  publicView,
  type RegistryKind,
  type WebhookEndpoint,
} from "./endpoint-book.js";
import { checkPublicUrl } from "./public-url.js";

/**
 * The two webhook registries: `/apiv2/webhooks` (order webhooks, `detail` envelopes with codes) and
 * `/apiv2/reports/webhooks` (report webhooks, `{status, code, data}`). Same behaviour, two dialects.
 */
type Failure = "auth" | "not_found" | "bad_url" | "limit" | "role_taken" | "empty";

interface Dialect {
  kind: RegistryKind;
  base: string;
  label: "order_webhooks" | "report_webhooks";
  ok(status: number, word: string, data: unknown): SandboxReply;
  fail(failure: Failure, msg: string): SandboxReply;
  created(endpoint: WebhookEndpoint): unknown;
  rotated(endpoint: WebhookEndpoint): unknown;
  listed(endpoints: WebhookEndpoint[]): unknown;
}

const ORDER_FAILURES: Record<Failure, [number, number]> = {
  auth: [401, -1],
  not_found: [404, -1],
  bad_url: [400, 4000],
  limit: [409, 4090],
  role_taken: [409, 4091],
  empty: [422, 4220],
};

const orderDialect: Dialect = {
  kind: "order",
  base: "/apiv2/webhooks",
  label: "order_webhooks",
  ok: (status, word, data) => json(status, { detail: { code: 10000, status: word, data } }),
  fail(failure, msg) {
    const [status, code] = ORDER_FAILURES[failure];
    return json(status, { detail: { code, msg } });
  },
  created: (e) => ({
    id: e.id,
    url: e.url,
    secret: e.secret,
    role: e.role,
    is_active: e.is_active,
    created_at: e.created_at,
  }),
  rotated: (e) => ({ id: e.id, secret: e.secret }),
  listed: (endpoints) => ({
    endpoints: endpoints.map(publicView),
    count: endpoints.length,
    max_endpoints: MAX_ENDPOINTS,
    roles: ENDPOINT_ROLES,
  }),
};

const REPORT_STATUSES: Record<Failure, number> = {
  auth: 401,
  not_found: 404,
  bad_url: 422,
  limit: 409,
  role_taken: 409,
  empty: 422,
};

const reportError = (status: number, msg: string): SandboxReply =>
  json(status, { status: "error", code: status, msg });

const reportDialect: Dialect = {
  kind: "report",
  base: "/apiv2/reports/webhooks",
  label: "report_webhooks",
  ok: (status, _word, data) => json(status, { status: "success", code: 10000, data }),
  fail: (failure, msg) => reportError(REPORT_STATUSES[failure], msg),
  created: (e) => ({ ...publicView(e), secret: e.secret }),
  rotated: (e) => ({ ...publicView(e), secret: e.secret }),
  listed: (endpoints) => endpoints.map(publicView),
};

interface Change {
  url?: string;
  is_active?: boolean;
  role?: EndpointRole;
}

/** Reads `url`, `is_active`, `role` from a body; a 422 reply when a present field has the wrong type. */
function readChange(body: unknown): Change | SandboxReply {
  if (body !== undefined && !isRecord(body))
    return validationReply([{ field: "body", msg: "a JSON object is required" }]);
  const { url, is_active, role } = (body ?? {}) as Record<string, unknown>;
  const errors = [];
  if (url !== undefined && typeof url !== "string") errors.push({ field: "url", msg: "must be a string" });
  if (is_active !== undefined && typeof is_active !== "boolean")
    errors.push({ field: "is_active", msg: "must be a boolean" });
  if (role !== undefined && !ENDPOINT_ROLES.includes(role as EndpointRole))
    errors.push({ field: "role", msg: "primary or backup" });
  if (errors.length > 0) return validationReply(errors);
  return {
    url: url as string | undefined,
    is_active: is_active as boolean | undefined,
    role: role as EndpointRole | undefined,
  };
}

function handlers(ctx: SandboxContext, book: EndpointBook, d: Dialect) {
  const auth = (req: SandboxRequest) =>
    authenticate(ctx, req, () => d.fail("auth", "Invalid API key or IP not whitelisted"));

  function withEndpoint(req: SandboxRequest, run: (a: SandboxAccount, e: WebhookEndpoint) => SandboxReply) {
    const account = auth(req);
    if (isReply(account)) return account;
    const id = Number(req.params.id);
    const endpoint = Number.isInteger(id) ? book.get(account.userId, d.kind, id) : undefined;
    return endpoint ? run(account, endpoint) : d.fail("not_found", "Webhook endpoint not found");
  }

  function create(req: SandboxRequest): SandboxReply {
    const account = auth(req);
    if (isReply(account)) return account;
    const change = readChange(readJson(req));
    if ("status" in change) return change;
    if (change.url === undefined) return validationReply([{ field: "url", msg: "field required" }]);
    const checked = checkPublicUrl(change.url);
    if (!checked.ok) return d.fail("bad_url", `URL rejected: ${checked.reason}`);
    const existing = book.list(account.userId, d.kind);
    if (existing.length >= MAX_ENDPOINTS)
      return d.fail("limit", `endpoint limit of ${MAX_ENDPOINTS} reached`);
    const taken = new Set(existing.map((e) => e.role));
    const role = change.role ?? (taken.has("primary") ? "backup" : "primary");
    if (taken.has(role)) return d.fail("role_taken", `role ${role} already taken`);
    return d.ok(201, "created", d.created(book.create(account.userId, d.kind, change.url, role)));
  }

  function patch(req: SandboxRequest): SandboxReply {
    return withEndpoint(req, (_account, endpoint) => {
      const change = readChange(readJson(req));
      if ("status" in change) return change;
      if (change.url === undefined && change.is_active === undefined && change.role === undefined) {
        return d.fail("empty", "nothing to update");
      }
      if (change.url !== undefined) {
        const checked = checkPublicUrl(change.url);
        if (!checked.ok) return d.fail("bad_url", `URL rejected: ${checked.reason}`);
      }
      return d.ok(200, "updated", publicView(book.update(endpoint, change)));
    });
  }

  return {
    create,
    patch,
    list(req: SandboxRequest): SandboxReply {
      const account = auth(req);
      return isReply(account) ? account : d.ok(200, "ok", d.listed(book.list(account.userId, d.kind)));
    },
    read: (req: SandboxRequest) => withEndpoint(req, (_a, e) => d.ok(200, "ok", publicView(e))),
    rotate: (req: SandboxRequest) =>
      withEndpoint(req, (_a, e) => d.ok(200, "rotated", d.rotated(book.rotate(e)))),
    remove: (req: SandboxRequest) =>
      withEndpoint(req, (_a, e) => {
        book.remove(e);
        return { status: 204 };
      }),
  };
}

function routesFor(ctx: SandboxContext, book: EndpointBook, d: Dialect): Route[] {
  const h = handlers(ctx, book, d);
  const limits: Pick<Route, "buckets" | "limitBy" | "limitReply"> =
    d.kind === "order"
      ? { buckets: ["order_webhooks"], limitBy: "key" }
      : {
          buckets: ["report_webhooks"],
          limitBy: "global",
          limitReply: (seconds) => ({
            ...reportError(429, "API rate limit exceeded"),
            headers: { "retry-after": String(seconds) },
          }),
        };
  const route = (method: string, suffix: string, action: string, handler: Route["handler"]): Route => ({
    method,
    pattern: `${d.base}${suffix}`,
    name: `${d.label}.${action}`,
    ...limits,
    handler,
  });
  return [
    route("POST", "", "create", h.create),
    route("GET", "", "list", h.list),
    route("GET", "/:id", "read", h.read),
    route("PATCH", "/:id", "patch", h.patch),
    route("POST", "/:id/rotate-secret", "rotate", h.rotate),
    route("DELETE", "/:id", "delete", h.remove),
  ];
}

export function createWebhookRegistryRoutes(ctx: SandboxContext, book: EndpointBook): Route[] {
  return [...routesFor(ctx, book, orderDialect), ...routesFor(ctx, book, reportDialect)];
}
