import { z } from "zod";
import { parseReply } from "./decode-error.js";
import { ServiceError, type ServiceFamily } from "./errors.js";
import type { RateBucket } from "./rate-limits.js";
import type { CallSpec, HttpMethod, RawReply, Transport } from "./transport.js";
import { wrapperSchema } from "./wrapper-schema.js";

/**
 * The two webhook registries, one API shape: `webhooks.orders` (`/apiv2/webhooks`, `detail`
 * envelopes; errors 4000, -1 (401/404), 4090, 4091, 4220, 5003) and `webhooks.reports`
 * (`/apiv2/reports/webhooks`, `{status, code, data}`; errors 401/404/409/422/429). The secret
 * (`whsec_…`) appears only in create and rotate replies: store it then.
 */
type EndpointRole = "primary" | "backup";

const webhookEndpointSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  role: z.enum(["primary", "backup"]),
  is_active: z.boolean(),
  created_at: z.string(),
  updated_at: z.string().optional(),
});

const secretSchema = z.string().startsWith("whsec_");
const createdEndpointSchema = webhookEndpointSchema.extend({ secret: secretSchema });
const rotatedSecretSchema = z.object({ id: z.number().int(), secret: secretSchema });

const orderEndpointListSchema = z.object({
  endpoints: z.array(webhookEndpointSchema),
  count: z.number().int(),
  max_endpoints: z.number().int(),
  roles: z.array(z.string()),
});

export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;
type CreatedWebhookEndpoint = z.infer<typeof createdEndpointSchema>;
type RotatedSecret = z.infer<typeof rotatedSecretSchema>;

interface EndpointChange {
  url?: string;
  /** false pauses the endpoint; pausing the primary does not promote the backup. */
  is_active?: boolean;
  /** Giving an endpoint the other endpoint's role swaps both roles atomically. */
  role?: EndpointRole;
}

/** Order registry replies: `{detail: {code, status, data}}`. */
const orderEnvelope = wrapperSchema(<T extends z.ZodType>(data: T) =>
  z.object({ detail: z.object({ code: z.number().int(), status: z.string(), data }) }),
);
/** Report registry replies: `{status, code, data}`. */
const reportEnvelope = wrapperSchema(<T extends z.ZodType>(data: T) =>
  z.object({ status: z.string(), code: z.number().int(), data }),
);

interface Registry {
  family: Extract<ServiceFamily, "order_webhooks" | "report_webhooks">;
  base: string;
  bucket: RateBucket;
  unwrap<T extends z.ZodType>(reply: RawReply, endpoint: string, data: T): z.infer<T>;
}

const registries: Record<"orders" | "reports", Registry> = {
  orders: {
    family: "order_webhooks",
    base: "/apiv2/webhooks",
    bucket: "order_webhooks",
    unwrap: <T extends z.ZodType>(reply: RawReply, endpoint: string, data: T) =>
      (parseReply("order_webhooks", endpoint, reply, orderEnvelope(data)) as { detail: { data: z.infer<T> } })
        .detail.data,
  },
  reports: {
    family: "report_webhooks",
    base: "/apiv2/reports/webhooks",
    bucket: "report_webhooks",
    unwrap: <T extends z.ZodType>(reply: RawReply, endpoint: string, data: T) =>
      (parseReply("report_webhooks", endpoint, reply, reportEnvelope(data)) as { data: z.infer<T> }).data,
  },
};

function registryApi<L extends z.ZodType>(transport: Transport, r: Registry, listSchema: L) {
  const call = (action: string, method: HttpMethod, suffix: string, extra: Partial<CallSpec> = {}) =>
    transport.send({
      family: r.family,
      endpoint: `${r.family}.${action}`,
      method,
      path: `${r.base}${suffix}`,
      auth: "key+ip",
      timeoutMs: 10_000,
      buckets: [r.bucket],
      // Reads and PATCH (it sets values) are safe to repeat; create, rotate and delete are not.
      resendable: method === "GET" || method === "PATCH",
      ...extra,
    });
  const idPath = (id: number) => {
    if (!Number.isSafeInteger(id)) throw new RangeError(`endpoint id must be an integer: ${id}`);
    return `/${id}`;
  };

  return {
    async create(input: { url: string; role?: EndpointRole }): Promise<CreatedWebhookEndpoint> {
      const reply = await call("create", "POST", "", { body: input });
      return r.unwrap(reply, `${r.family}.create`, createdEndpointSchema);
    },
    async list(): Promise<z.infer<L>> {
      return r.unwrap(await call("list", "GET", ""), `${r.family}.list`, listSchema);
    },
    async read(id: number): Promise<WebhookEndpoint> {
      return r.unwrap(await call("read", "GET", idPath(id)), `${r.family}.read`, webhookEndpointSchema);
    },
    async patch(id: number, change: EndpointChange): Promise<WebhookEndpoint> {
      const reply = await call("patch", "PATCH", idPath(id), { body: change });
      return r.unwrap(reply, `${r.family}.patch`, webhookEndpointSchema);
    },
    /** The old secret stops verifying immediately: switch receivers over before rotating, or accept both. */
    async rotateSecret(id: number): Promise<RotatedSecret> {
      const reply = await call("rotate", "POST", `${idPath(id)}/rotate-secret`);
      return r.unwrap(reply, `${r.family}.rotate`, rotatedSecretSchema);
    },
    async remove(id: number): Promise<void> {
      const reply = await call("delete", "DELETE", idPath(id));
      if (reply.status !== 204 && reply.status !== 200) {
        throw new ServiceError({
          family: r.family,
          endpoint: `${r.family}.delete`,
          kind: "invalid_reply",
          httpStatus: reply.status,
          message: `unexpected HTTP ${reply.status} deleting webhook endpoint ${id}`,
          retryable: false,
        });
      }
    },
  };
}

export function createWebhookRegistriesApi(transport: Transport) {
  return {
    orders: registryApi(transport, registries.orders, orderEndpointListSchema),
    reports: registryApi(transport, registries.reports, z.array(webhookEndpointSchema)),
  };
}
