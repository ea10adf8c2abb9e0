export { withBalanceChart, withSpendChart } from "./attach.js";
