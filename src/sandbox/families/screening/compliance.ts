import type { SandboxContext } from "../../context.js";
import { isRecord, type Route, readJson, type SandboxReply, type SandboxRequest } from "../../router.js";
import { DEMO_ADDRESSES } from "./demo-addresses.js";
import { authWithWhitelist } from "./http.js";

/** The deny-list sets, most serious first: an address in several sets gets the first one. */
const COMPLIANCE_CATEGORIES = ["aml_risk", "usdt_frozen", "smart_contract", "spam_sender"] as const;
export type ComplianceCategory = (typeof COMPLIANCE_CATEGORIES)[number];

/** What an `aml_risk` entry carries (the other sets carry nothing). */
export interface AmlListing {
  severity: string;
  reason_code: string;
  label: string;
}

const TRON_BASE58 = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const MAX_BATCH = 1000;

const DEFAULT_LISTING: AmlListing = {
  severity: "BLOCK",
  reason_code: "SANCTIONS_SCREENING",
  label: "Sanctions screening match",
};

const failure = (status: number, code: number, msg: string): SandboxReply => ({
  status,
  json: { code, status: "error", msg },
});
const success = (data: unknown): SandboxReply => ({
  status: 200,
  json: { code: 0, status: "success", data },
});

export function createCompliance(ctx: SandboxContext, options: { seed: boolean }) {
  const sets = new Map<ComplianceCategory, Map<string, AmlListing | undefined>>(
    COMPLIANCE_CATEGORIES.map((c) => [c, new Map()]),
  );
  let revision = 1;
  let unavailable = false;

  function addToList(category: ComplianceCategory, address: string, listing?: Partial<AmlListing>): void {
    const meta = category === "aml_risk" ? { ...DEFAULT_LISTING, ...listing } : undefined;
    sets.get(category)?.set(address, meta);
    revision += 1;
  }

  function removeFromList(category: ComplianceCategory, address: string): void {
    if (sets.get(category)?.delete(address)) revision += 1;
  }

  function verdict(address: string) {
    const checked_at = new Date(ctx.now()).toISOString();
    const category = COMPLIANCE_CATEGORIES.find((c) => sets.get(c)?.has(address));
    if (!category) return { address, blocked: false, category: "clean", checked_at };
    const meta = category === "aml_risk" ? sets.get(category)?.get(address) : undefined;
    return { address, blocked: true, category, ...meta, checked_at };
  }

  function lookup(req: SandboxRequest): SandboxReply {
    if (unavailable) return failure(503, 5003, "cache backend temporarily unavailable");
    const address = req.params.address ?? "";
    if (!TRON_BASE58.test(address)) return failure(400, 1001, "invalid TRON address format");
    return success(verdict(address));
  }

  function stats(): SandboxReply {
    if (unavailable) return failure(503, 5003, "cache backend temporarily unavailable");
    const size = (c: ComplianceCategory) => sets.get(c)?.size ?? 0;
    const counts = Object.fromEntries(COMPLIANCE_CATEGORIES.map((c) => [c, size(c)]));
    const total = COMPLIANCE_CATEGORIES.reduce((sum, c) => sum + size(c), 0);
    return success({ ...counts, total, revision, checked_at: new Date(ctx.now()).toISOString() });
  }

  function batch(req: SandboxRequest): SandboxReply {
    const auth = authWithWhitelist(ctx.accounts, req);
    // The spec does not show the batch's auth failure; we answer the compliance error shape with code -1.
    if (!auth.ok) {
      return failure(401, -1, auth.reason === "missing" ? "API key not provided" : "key or IP not accepted");
    }
    if (unavailable) return failure(503, 5003, "cache backend temporarily unavailable");
    const body = readJson(req);
    const addresses = isRecord(body) ? body.addresses : undefined;
    if (!Array.isArray(addresses) || addresses.length > MAX_BATCH) {
      return failure(400, 1001, `addresses must be an array of at most ${MAX_BATCH} strings`);
    }
    const results = addresses.map((entry: unknown) => {
      const address = typeof entry === "string" ? entry : JSON.stringify(entry);
      if (typeof entry === "string" && TRON_BASE58.test(entry)) return verdict(entry);
      const checked_at = new Date(ctx.now()).toISOString();
      return {
        address,
        blocked: false,
        category: "invalid",
        error: "invalid TRON address format",
        checked_at,
      };
    });
    return success({ count: results.length, checked_at: new Date(ctx.now()).toISOString(), results });
  }

  if (options.seed) seedDemo(addToList);

  const routes: Route[] = [
    {
      method: "GET",
      pattern: "/apiv2/compliance/stats",
      name: "compliance.stats",
      buckets: ["compliance_open"],
      handler: stats,
    },
    {
      method: "GET",
      pattern: "/apiv2/compliance/:address",
      name: "compliance.lookup",
      buckets: ["compliance_open"],
      handler: lookup,
    },
    {
      method: "POST",
      pattern: "/apiv2/compliance/batch",
      name: "compliance.batch",
      buckets: ["compliance_batch"],
      limitBy: "key",
      handler: batch,
    },
  ];
  const control = {
    addToList,
    removeFromList,
    setComplianceUnavailable(value: boolean): void {
      unavailable = value;
    },
    verdict,
    /** Tests: the deny list changed without a set change the test can name (a re-publish). */
    bumpRevision(): number {
      revision += 1;
      return revision;
    },
    /** Tests: the deny list's current revision, as `stats` reports it. */
    revision: (): number => revision,
    /**
     * Tests: moves an address into one set and out of every other (`clean`: out of all), as one
     * deny-list update with one new revision.
     */
    setCategory(
      address: string,
      category: ComplianceCategory | "clean",
      listing?: Partial<AmlListing>,
    ): void {
      for (const set of sets.values()) set.delete(address);
      if (category !== "clean") {
        const meta = category === "aml_risk" ? { ...DEFAULT_LISTING, ...listing } : undefined;
        sets.get(category)?.set(address, meta);
      }
      revision += 1;
    },
  };
  return { routes, control };
}

/** A few listed addresses so the demo shows every category (the sanctioned one is in two sets). */
function seedDemo(add: (c: ComplianceCategory, a: string, l?: Partial<AmlListing>) => void): void {
  add("aml_risk", DEMO_ADDRESSES.sanctioned, {
    severity: "BLOCK",
    reason_code: "OFAC_SDN",
    label: "OFAC SDN list",
  });
  add("usdt_frozen", DEMO_ADDRESSES.sanctioned);
  add("aml_risk", DEMO_ADDRESSES.highRisk, {
    severity: "REVIEW",
    reason_code: "SANCTIONS_SCREENING",
    label: "High-risk exposure (mixer, scam)",
  });
  add("usdt_frozen", DEMO_ADDRESSES.usdtFrozen);
  add("smart_contract", DEMO_ADDRESSES.usdtContract);
  add("spam_sender", DEMO_ADDRESSES.spamSender);
}
