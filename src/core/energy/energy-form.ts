import type { FormSpec } from "../feature.js";
import { ADDRESS_FIELD, addressFieldFails } from "../form-fields.js";
import { parseEnergyArgs } from "./energy-args.js";

/** `energy` typed without arguments: the address and the amount. */
export const energyForm: FormSpec = {
  verb: "energy",
  title: "Rent energy",
  submit: "Get quote",
  fields: [
    ADDRESS_FIELD,
    {
      name: "amount",
      label: "Energy",
      placeholder: "65k",
      hint: "65000, 65k or 131k; above 650k by orchestrator",
    },
  ],
  prompt:
    "Energy: reply to this message with the address and the amount, e.g. TF6qg4pGgrMviRrWwUomrfxbPTsxjKrP7b 65k",
  placeholder: "<address> <amount>",
  check: (args) => parseEnergyArgs(args),
  /** The address when it fails on its own, else the amount. */
  fieldOf: (values) => (addressFieldFails(values) ? "address" : "amount"),
};
