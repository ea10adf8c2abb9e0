export { withBalanceChart, withSpendChart } from "./attach.js";
export { chartFontFiles } from "./fonts.js";
