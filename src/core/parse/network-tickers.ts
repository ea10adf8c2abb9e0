/** The spec's 48 accepted `network` tickers, in the spec's order (help lists them this way). */
// biome-ignore format: the spec's list, kept as compact as the spec writes it
export const NETWORK_TICKERS = [
  "algo", "apt", "arb", "avax", "base", "bnb", "bsc", "btc", "tao", "ada", "celo", "atom", "cro", "doge",
  "dydx", "eth", "etc", "ftm", "fil", "flr", "gnosis", "hbar", "hype", "inj", "icp", "linea", "ltc", "mob",
  "near", "op", "dot", "matic", "xrp", "sei", "sol", "strk", "xlm", "sui", "xtz", "ton", "trx", "xdc", "okb",
  "zil", "zksync", "bch", "zen", "zec",
] as const;

export type NetworkTicker = (typeof NETWORK_TICKERS)[number];

const TICKER_SET: ReadonlySet<string> = new Set(NETWORK_TICKERS);

export const isNetworkTicker = (text: string): text is NetworkTicker => TICKER_SET.has(text);

/**
 * Networks where a plain `0x` + 40-hex address is the normal account form, most used first (the
 * order of the buttons). Left out on purpose: bnb (BNB Beacon Chain, `bnb1…`; BNB Smart Chain is
 * bsc), inj (`inj1…` native), fil (`f1…`/`f410…` native), near and hbar (their 0x forms are aliases).
 * Kept: sei and hype (EVM accounts are first-class there), xdc (also written `xdc…`).
 */
// biome-ignore format: one list, read as a whole
export const EVM_TICKERS = [
  "eth", "bsc", "arb", "base", "op", "matic", "avax", "linea", "zksync", "ftm", "cro", "gnosis", "celo", "etc",
  "okb", "flr", "sei", "hype", "xdc",
] as const satisfies readonly NetworkTicker[];

/** Common names people type instead of the ticker: suggested in the error, never silently accepted. */
// biome-ignore format: a lookup table, read as a whole
export const NETWORK_NAMES: Readonly<Record<string, NetworkTicker>> = {
  algorand: "algo", aptos: "apt", arbitrum: "arb", avalanche: "avax", bitcoin: "btc", bittensor: "tao",
  cardano: "ada", cosmos: "atom", cronos: "cro", dogecoin: "doge", ethereum: "eth", erc20: "eth",
  fantom: "ftm", filecoin: "fil", flare: "flr", hedera: "hbar", hyperliquid: "hype", injective: "inj",
  litecoin: "ltc", mobilecoin: "mob", optimism: "op", polkadot: "dot", polygon: "matic", pol: "matic",
  ripple: "xrp", solana: "sol", starknet: "strk", stellar: "xlm", tezos: "xtz", toncoin: "ton",
  tron: "trx", trc20: "trx", bep20: "bsc", zilliqa: "zil", horizen: "zen", zcash: "zec",
  bitcoincash: "bch", "bitcoin-cash": "bch", era: "zksync",
};
