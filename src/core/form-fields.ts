import type { FormField } from "./feature.js";
import { parseTronAddress } from "./parse/tron-address.js";

/** The TRON address field every form that names an address starts with. */
export const ADDRESS_FIELD: FormField = {
  name: "address",
  label: "TRON address",
  placeholder: "TF6qg4pGgrMviRrWwUomrfxbPTsxjKrP7b",
};

/** True when the address field alone is refused: empty, not a TRON address, or more than one word. */
export function addressFieldFails(values: Readonly<Record<string, string>>): boolean {
  const address = (values.address ?? "").trim();
  return address === "" || !parseTronAddress(address).ok || /\s/.test(address);
}
