import { closest } from "./closest.js";
import { detectNetworks, isEvmAddress, looksLikeEvmAddress } from "./detect-network.js";
import { describeChar, echo } from "./echo.js";
import {
  EVM_TICKERS,
  isNetworkTicker,
  NETWORK_NAMES,
  NETWORK_TICKERS,
  type NetworkTicker,
} from "./network-tickers.js";
import { fail, ok, type ParseResult } from "./result.js";
import { parseTronAddress, TRON_ADDRESS_CHARS } from "./tron-address.js";

export { detectNetworks } from "./detect-network.js";
export { EVM_TICKERS, isNetworkTicker, NETWORK_TICKERS, type NetworkTicker } from "./network-tickers.js";

/** The spec's address length rule (version 1 order request), applied to every non-TRON network. */
const SCREEN_ADDRESS_MIN_CHARS = 10;
const SCREEN_ADDRESS_MAX_CHARS = 100;

const EXAMPLE_TICKERS = "eth, trx, btc, sol or bsc";
const ALL_TICKERS = `help screen lists all ${NETWORK_TICKERS.length}`;
const SCREEN_USAGE = "use screen <address> [network] [provider]";
const PRINTABLE_ASCII = /^[\x21-\x7e]$/;
const PROVIDER_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/;
const EVM_SET: ReadonlySet<string> = new Set(EVM_TICKERS);

/** A network ticker from the spec's list, any case. */
export function parseNetwork(text: string): ParseResult<NetworkTicker> {
  const ticker = text.trim().toLowerCase();
  if (isNetworkTicker(ticker)) return ok(ticker);
  if (ticker === "") return fail(`no network given: use a ticker like ${EXAMPLE_TICKERS} (${ALL_TICKERS})`);
  const named = Object.hasOwn(NETWORK_NAMES, ticker) ? NETWORK_NAMES[ticker] : undefined;
  const guess = named ?? closest(ticker, NETWORK_TICKERS);
  const hint = guess === undefined ? "" : ` (did you mean ${guess}?)`;
  return fail(
    `${echo(text)} is not a network ticker${hint}: use a ticker like ${EXAMPLE_TICKERS}; ${ALL_TICKERS}`,
  );
}

/**
 * The generic sanity rule for addresses of networks the bot does not validate itself: 10 to 100
 * printable ASCII characters. No listed network uses anything else, and a look-alike letter
 * (Cyrillic "а" for Latin "a") would screen a different, probably empty, address.
 */
export function checkScreenAddress(address: string): ParseResult<string> {
  const accepted = `addresses have ${SCREEN_ADDRESS_MIN_CHARS} to ${SCREEN_ADDRESS_MAX_CHARS} characters, no spaces`;
  const chars = Array.from(address);
  const foreign = chars.find((char) => !PRINTABLE_ASCII.test(char));
  if (foreign !== undefined) {
    return fail(`${echo(address)} is not an address (it contains ${describeChar(foreign)}): ${accepted}`);
  }
  if (chars.length < SCREEN_ADDRESS_MIN_CHARS) {
    return fail(`${echo(address)} is too short for an address (${chars.length} characters): ${accepted}`);
  }
  if (chars.length > SCREEN_ADDRESS_MAX_CHARS) {
    return fail(`${echo(address)} is too long for an address (${chars.length} characters): ${accepted}`);
  }
  return ok(address);
}

/** A provider name as typed (the service's names are free-form strings such as provider_a). */
export function parseProvider(text: string): ParseResult<string> {
  const name = text.trim();
  if (PROVIDER_NAME.test(name)) return ok(name);
  return fail(`${echo(text)} is not a provider name: use a name like provider_a (prices aml lists them)`);
}

export interface ScreenArgs {
  address: string;
  /** Set when the user gave it or the address fits exactly one network. */
  network?: NetworkTicker;
  networkSource?: "given" | "detected";
  provider?: string;
  /** Set instead of `network` when the address fits several networks: offer these as buttons. */
  candidates?: NetworkTicker[];
}

/**
 * `screen <address> [network] [provider]`. A network the user typed wins over detection (and
 * must be a known ticker); otherwise the address decides, or offers candidates, or the user is
 * asked to name the network.
 */
export function parseScreenArgs(args: readonly string[]): ParseResult<ScreenArgs> {
  const [address, network, provider, ...extra] = args;
  if (address === undefined || address.trim() === "") {
    return fail(`no address given: ${SCREEN_USAGE}, e.g. screen TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t`);
  }
  if (extra.length > 0) return fail(`too many words after screen (${args.length}): ${SCREEN_USAGE}`);
  const parsedProvider = provider === undefined ? ok(undefined) : parseProvider(provider);
  if (!parsedProvider.ok) return parsedProvider;
  const base = { address: address.trim(), ...(parsedProvider.value && { provider: parsedProvider.value }) };
  return network === undefined ? withDetectedNetwork(base) : withGivenNetwork(base, network);
}

type ScreenBase = Pick<ScreenArgs, "address" | "provider">;

function withGivenNetwork(base: ScreenBase, text: string): ParseResult<ScreenArgs> {
  const network = parseNetwork(text);
  if (!network.ok) return network;
  const address = checkAddressFor(network.value, base.address);
  if (!address.ok) return address;
  return ok({ ...base, network: network.value, networkSource: "given" });
}

/** TRON and a mixed-case EVM address carry checksums we can verify; everything else gets the generic rule. */
function checkAddressFor(network: NetworkTicker, address: string): ParseResult<string> {
  if (network === "trx") return parseTronAddress(address);
  if (EVM_SET.has(network) && looksLikeEvmAddress(address) && !isEvmAddress(address))
    return fail(eip55Line(address));
  return checkScreenAddress(address);
}

function withDetectedNetwork(base: ScreenBase): ParseResult<ScreenArgs> {
  const detection = detectNetworks(base.address);
  if (detection.kind === "unknown") return fail(unknownNetworkLine(base.address));
  const sane = checkScreenAddress(base.address);
  if (!sane.ok) return sane;
  if (detection.kind === "single")
    return ok({ ...base, network: detection.network, networkSource: "detected" });
  return ok({ ...base, candidates: detection.candidates });
}

/** The most precise line for an address no format fits: a near-miss of a checksummed format first. */
function unknownNetworkLine(address: string): string {
  if (address.startsWith("T") && address.length === TRON_ADDRESS_CHARS) {
    const tron = parseTronAddress(address);
    if (!tron.ok) return tron.error;
  }
  if (looksLikeEvmAddress(address)) return eip55Line(address);
  const sane = checkScreenAddress(address);
  if (!sane.ok) return sane.error;
  return `could not tell the network of ${echo(address)}: add it after the address, e.g. screen <address> eth (${ALL_TICKERS})`;
}

const eip55Line = (address: string): string =>
  `${echo(address)} is not a valid EVM address (its mixed-case checksum failed, look for a typo): an EVM address is 0x and 40 hex digits`;
