import {
  type ScreeningProvider,
  type ScreeningProviders,
  screeningProvidersSchema,
} from "../../service/screening.js";
import type { CoreDeps } from "../deps.js";
import { capList } from "../format.js";

/**
 * The screening providers the account may order, read from the service (the list is data, never
 * hard-coded) and kept in the store for a short while: every screen command needs it, and it
 * changes rarely. A refusal based on the cached copy is re-checked against a fresh one first,
 * so a provider that came back is never refused for up to the TTL.
 */
const PROVIDERS_CACHE_KEY = "screening:providers";
export const PROVIDERS_TTL_MS = 5 * 60_000;

type Deps = Pick<CoreDeps, "service" | "store">;

async function loadProviders(
  deps: Deps,
  options: { fresh?: boolean } = {},
): Promise<{ list: ScreeningProviders; cached: boolean }> {
  if (!options.fresh) {
    const raw = await deps.store.get(PROVIDERS_CACHE_KEY);
    const cached = raw === null ? undefined : readCached(raw);
    if (cached) return { list: cached, cached: true };
  }
  const list = await deps.service.screening.providers();
  await deps.store.set(PROVIDERS_CACHE_KEY, JSON.stringify(list), PROVIDERS_TTL_MS);
  return { list, cached: false };
}

function readCached(raw: string): ScreeningProviders | undefined {
  try {
    const parsed = screeningProvidersSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Drops the cached list (after the service refused a provider the list said it would take). */
export const forgetProviders = (deps: Pick<CoreDeps, "store">): Promise<void> =>
  deps.store.del(PROVIDERS_CACHE_KEY);

export type ProviderChoice = { ok: true; provider: ScreeningProvider } | { ok: false; line: string };

const names = (providers: readonly ScreeningProvider[]): string =>
  providers.length === 0 ? "none" : providers.map((p) => p.provider).join(", ");

function networksOf(provider: ScreeningProvider): string {
  const { shown, more } = capList(provider.networks, 12);
  return shown.join(", ") + (more > 0 ? ` and ${more} more` : "");
}

const covering = (list: ScreeningProviders, network: string): ScreeningProvider[] =>
  list.providers.filter((p) => p.available && p.networks.includes(network));

/**
 * The provider to order from: the one asked for, if the account has it, it is available and it
 * covers the network; otherwise the first available one that covers the network. When none fits,
 * one line that names what is available instead. Pure: decides from the list alone.
 */
function chooseProvider(list: ScreeningProviders, network: string, wanted?: string): ProviderChoice {
  const fits = covering(list, network);
  if (wanted === undefined) {
    const first = fits[0];
    if (first) return { ok: true, provider: first };
    return { ok: false, line: noneCoversLine(list, network) };
  }
  const found = list.providers.find((p) => p.provider === wanted);
  const others = `providers available for ${network}: ${names(fits)}`;
  if (!found) {
    const available = list.providers.filter((p) => p.available);
    return {
      ok: false,
      line: `Provider ${wanted} is not available to this account (available: ${names(available)}); nothing was ordered.`,
    };
  }
  if (!found.available) {
    const reason = found.reason ? ` (${found.reason})` : "";
    return {
      ok: false,
      line: `Provider ${wanted} is not available right now${reason}; ${others}. Nothing was ordered.`,
    };
  }
  if (!found.networks.includes(network)) {
    return {
      ok: false,
      line: `Provider ${wanted} does not cover ${network} (it covers ${networksOf(found)}); ${others}. Nothing was ordered.`,
    };
  }
  return { ok: true, provider: found };
}

function noneCoversLine(list: ScreeningProviders, network: string): string {
  const down = list.providers.filter((p) => !p.available && p.networks.includes(network));
  if (down.length > 0) {
    const why = down.map((p) => `${p.provider}${p.reason ? ` (${p.reason})` : ""}`).join(", ");
    return `No provider for ${network} is available right now: ${why}. Nothing was ordered; try again later.`;
  }
  const available = list.providers.filter((p) => p.available);
  const what = available.map((p) => `${p.provider} covers ${networksOf(p)}`).join("; ");
  return `None of this account's providers covers ${network}${what ? ` (${what})` : ""}. Nothing was ordered.`;
}

/** chooseProvider on the cached list, confirmed against a fresh list before refusing. */
export async function pickProvider(deps: Deps, network: string, wanted?: string): Promise<ProviderChoice> {
  const first = await loadProviders(deps);
  const choice = chooseProvider(first.list, network, wanted);
  if (choice.ok || !first.cached) return choice;
  return chooseProvider((await loadProviders(deps, { fresh: true })).list, network, wanted);
}

/**
 * The networks among `candidates` that can be screened now: covered by the provider asked for, or
 * by any available provider. Keeps the candidates' order (most used first).
 */
export async function screenableNetworks<T extends string>(
  deps: Deps,
  candidates: readonly T[],
  wanted?: string,
): Promise<{ networks: T[]; list: ScreeningProviders }> {
  const { list } = await loadProviders(deps);
  const usable = list.providers.filter((p) => p.available && (wanted === undefined || p.provider === wanted));
  const covered = new Set(usable.flatMap((p) => p.networks));
  return { networks: candidates.filter((n) => covered.has(n)), list };
}
