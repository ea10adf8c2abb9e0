/** One row of a payout run as typed (the plan checks it): where it stands, its address and amount. */
export interface PayoutRow {
  /** For the quote's lines: "line 4" of the message or file, or "address 3" of a one-line run. */
  where: string;
  address: string;
  amount: string;
}

/** Splits a row: `address,amount`, `address;amount`, `address<TAB>amount` or `address amount`. */
export function splitRow(line: string): { address: string; amount: string } {
  const text = line.trim();
  const cut = /[,;\t ]/.exec(text);
  if (cut === null) return { address: text, amount: "" };
  const unquote = (s: string) =>
    s
      .trim()
      .replace(/^"(.*)"$/s, "$1")
      .trim();
  return { address: unquote(text.slice(0, cut.index)), amount: unquote(text.slice(cut.index + 1)) };
}
