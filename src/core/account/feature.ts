import { defineFeature } from "../feature.js";
import { balanceCommand } from "./balance-command.js";
import { pricesCommand } from "./prices-command.js";

export const accountFeature = defineFeature({ name: "account", commands: [pricesCommand, balanceCommand] });
