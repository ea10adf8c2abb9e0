import { z } from "zod";
import { envelopeError, parseReply } from "./decode-error.js";
import { notSent } from "./errors.js";
import type { CallSpec, Transport } from "./transport.js";
import { wrapperSchema } from "./wrapper-schema.js";

export const COMPLIANCE_BATCH_MAX = 1000;

/** The deny-list categories in priority order, then `clean`; batch results may also be `invalid`. */
const complianceCategorySchema = z.enum([
  "aml_risk",
  "usdt_frozen",
  "smart_contract",
  "spam_sender",
  "clean",
  "invalid",
]);

const complianceVerdictSchema = z.object({
  address: z.string(),
  blocked: z.boolean(),
  category: complianceCategorySchema,
  /** Only for aml_risk. */
  severity: z.string().optional(),
  reason_code: z.string().optional(),
  label: z.string().optional(),
  checked_at: z.string(),
  /** Only on batch entries of category `invalid`. */
  error: z.string().optional(),
});

const complianceStatsSchema = z.object({
  aml_risk: z.number().int(),
  usdt_frozen: z.number().int(),
  smart_contract: z.number().int(),
  spam_sender: z.number().int(),
  total: z.number().int(),
  revision: z.number().int(),
  checked_at: z.string(),
});

const complianceBatchSchema = z.object({
  count: z.number().int(),
  checked_at: z.string(),
  results: z.array(complianceVerdictSchema),
});

export type ComplianceVerdict = z.infer<typeof complianceVerdictSchema>;
export type ComplianceStats = z.infer<typeof complianceStatsSchema>;
export type ComplianceBatch = z.infer<typeof complianceBatchSchema>;

const envelope = wrapperSchema(<T extends z.ZodType>(data: T) =>
  z.object({ code: z.number(), status: z.string(), data: data.optional(), msg: z.string().optional() }),
);

const TIMEOUT_MS = 10_000;

type ComplianceCall = Pick<CallSpec, "endpoint" | "method" | "path" | "auth" | "buckets"> & Partial<CallSpec>;

export function createComplianceApi(transport: Transport) {
  async function call<S extends z.ZodType>(spec: ComplianceCall, schema: S): Promise<z.infer<S>> {
    // Every compliance call only reads: resending one is harmless.
    const reply = await transport.send({
      family: "compliance",
      timeoutMs: TIMEOUT_MS,
      resendable: true,
      ...spec,
    });
    const body = parseReply("compliance", spec.endpoint, reply, envelope(schema));
    if (body.code !== 0 || body.data === undefined) {
      throw envelopeError(
        "compliance",
        spec.endpoint,
        reply.status,
        body.code,
        body.msg ?? "the lookup failed",
      );
    }
    return body.data as z.infer<S>;
  }

  return {
    /** Open lookup of one TRON address: no key, free, limited per IP. `maxLimiterWaitMs`: see CallSpec. */
    lookup: (address: string, options: { maxLimiterWaitMs?: number } = {}): Promise<ComplianceVerdict> =>
      call(
        {
          ...options,
          endpoint: "compliance.lookup",
          method: "GET",
          path: `/apiv2/compliance/${encodeURIComponent(address)}`,
          auth: "none",
          buckets: ["compliance_open"],
        },
        complianceVerdictSchema,
      ),
    stats: (): Promise<ComplianceStats> =>
      call(
        {
          endpoint: "compliance.stats",
          method: "GET",
          path: "/apiv2/compliance/stats",
          auth: "none",
          buckets: ["compliance_open"],
        },
        complianceStatsSchema,
      ),
    /** Up to 1000 addresses with `x-api-key`; results keep the request order, malformed ones come back `invalid`. */
    batch: async (
      addresses: readonly string[],
      options: { timeoutMs?: number; maxLimiterWaitMs?: number } = {},
    ): Promise<ComplianceBatch> => {
      if (addresses.length > COMPLIANCE_BATCH_MAX) {
        throw notSent(
          "compliance",
          "compliance.batch",
          `a compliance batch takes at most ${COMPLIANCE_BATCH_MAX} addresses, got ${addresses.length}; split it`,
        );
      }
      return call(
        {
          ...options,
          endpoint: "compliance.batch",
          method: "POST",
          path: "/apiv2/compliance/batch",
          body: { addresses },
          auth: "key+ip",
          buckets: ["compliance_batch"],
        },
        complianceBatchSchema,
      );
    },
  };
}
